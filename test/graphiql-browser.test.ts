import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from './support/app.ts';
import { type BrowserApp, openBrowserApp } from './support/browser.ts';
import { TEST_DB } from './support/database.ts';
import { escrowEvent, postEvent } from './support/events.ts';
import { makeOrder } from './support/fixtures.ts';

/**
 * GraphiQL in a real browser (Debian's Chromium; .ci/run installs it): the page loads with no request
 * leaving the machine, runs a query, and shows the order. Once, in the PGlite project.
 */
describe.skipIf(TEST_DB !== 'pglite')('GraphiQL in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  let opened: BrowserApp | undefined;

  beforeAll(async () => {
    opened = await openBrowserApp();
    ({ t, browser, base } = opened);
  }, 60_000);

  afterAll(() => opened?.close());

  it('runs a query and shows the result, loading nothing from outside', async () => {
    const order = await makeOrder(t, {}, 'browser-user');
    const page = await browser.newPage();
    const outside: string[] = [];
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(base) && !url.startsWith('data:') && !url.startsWith('blob:')) outside.push(url);
    });
    const query = encodeURIComponent('{ ordersByUser(userId: "browser-user") { total data { orderId status } } }');
    await page.goto(`${base}/graphql?query=${query}`);
    await page.click('.graphiql-execute-button', { timeout: 30_000 });
    await page.waitForFunction((id) => document.body.innerText.replace(/\s/g, '').includes(id), order.order_id, {
      timeout: 30_000,
    });
    const text = (await page.evaluate(() => document.body.innerText)).replace(/\s/g, '');
    expect(text).toContain('"status":"PENDING"');
    expect(outside).toEqual([]);
  }, 90_000);

  it('opens with the example query, which runs as it is', async () => {
    const order = await makeOrder(t, {}, 'example-user');
    // A fresh context: GraphiQL keeps the tabs of earlier visits in localStorage, and opens those instead.
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${base}/graphql`);
    // The editor lays text out with non-breaking spaces: compare without any white space.
    await page.waitForFunction(() => document.body.innerText.replace(/\s/g, '').includes('orders(limit:5)'), undefined, {
      timeout: 30_000,
    });
    await page.click('.graphiql-execute-button', { timeout: 30_000 });
    await page.waitForFunction((id) => document.body.innerText.replace(/\s/g, '').includes(id), order.order_id, {
      timeout: 30_000,
    });
    const text = (await page.evaluate(() => document.body.innerText)).replace(/\s/g, '');
    expect(text).toContain('"status":"PENDING"');
    expect(text).not.toContain('"errors"');
  }, 90_000);

  it('shows a subscription update as the order moves', async () => {
    const order = await makeOrder(t, {}, 'browser-subscriber');
    const page = await browser.newPage();
    const query = encodeURIComponent(`subscription { orderUpdated(orderId: "${order.order_id}") { status } }`);
    await page.goto(`${base}/graphql?query=${query}`);
    await page.click('.graphiql-execute-button', { timeout: 30_000 });
    // Give the subscription a moment to be established before the event is recorded.
    await page.waitForTimeout(1_000);
    await postEvent(t, order.source_intent.swap_id, escrowEvent('create', 1));
    await page.waitForFunction(() => document.body.innerText.includes('SOURCE_CREATED'), undefined, { timeout: 30_000 });
  }, 90_000);
});
