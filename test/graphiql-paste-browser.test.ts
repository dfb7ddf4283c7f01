import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from './support/app.ts';
import { type BrowserApp, openBrowserApp } from './support/browser.ts';
import { TEST_DB } from './support/database.ts';
import { makeOrder } from './support/fixtures.ts';

/**
 * GraphiQL as a user meets it: the first load's bytes on the wire (compressed), and a query pasted over the
 * example and run with Ctrl+Enter at once, before GraphiQL's debounced parse of the editor. Once, on PGlite.
 */
describe.skipIf(TEST_DB !== 'pglite')('GraphiQL: first load and paste-and-run', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  let opened: BrowserApp | undefined;

  beforeAll(async () => {
    opened = await openBrowserApp();
    ({ t, browser, base } = opened);
  }, 60_000);

  afterAll(() => opened?.close());

  it('loads in under 3 MB on the wire, then runs a pasted query at once', async () => {
    const order = await makeOrder(t, {}, 'paste-user');
    const page = await (await browser.newContext()).newPage();
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    let wireBytes = 0;
    cdp.on('Network.loadingFinished', (event) => {
      wireBytes += event.encodedDataLength;
    });
    await page.goto(`${base}/graphql`, { waitUntil: 'load' });
    await page.waitForFunction(() => document.body.innerText.replace(/\s/g, '').includes('orders(limit:5)'), undefined, {
      timeout: 30_000,
    });
    console.log(`GraphiQL first load: ${wireBytes} bytes on the wire`);
    expect(wireBytes).toBeGreaterThan(100_000);
    expect(wireBytes).toBeLessThan(3_000_000);

    // Replace the example with a query of another shape, and run it in the same breath.
    await page.click('.graphiql-query-editor .monaco-editor');
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText(`query PastedQuery { order(orderId: "${order.order_id}") { orderId userId } }`);
    await page.keyboard.press('Control+Enter');
    await page.waitForFunction(() => document.body.innerText.replace(/\s/g, '').includes('"userId":"paste-user"'), undefined, {
      timeout: 30_000,
    });
    const text = (await page.evaluate(() => document.body.innerText)).replace(/\s/g, '');
    expect(text).not.toContain('Cannotinferoperation');
    expect(text).not.toContain('"errors"');
  }, 120_000);
});
