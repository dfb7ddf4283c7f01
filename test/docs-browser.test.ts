import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../src/rest/routes.ts';
import { type BrowserApp, openBrowserApp } from './support/browser.ts';
import { TEST_DB } from './support/database.ts';

/** /docs in Debian's Chromium: Redoc renders /openapi.json with no console error and nothing loaded from outside. Once, on PGlite. */
describe.skipIf(TEST_DB !== 'pglite')('/docs in Chromium', () => {
  let browser: Browser;
  let base: string;
  let opened: BrowserApp | undefined;

  beforeAll(async () => {
    opened = await openBrowserApp();
    ({ browser, base } = opened);
  }, 60_000);

  afterAll(() => opened?.close());

  it('renders every operation of the document, with no console error, loading nothing from outside', async () => {
    const page = await browser.newPage();
    // Every request to another host, answered or refused (the CSP would refuse one, with a console error).
    const outside: string[] = [];
    const isOutside = (url: string) => !url.startsWith(base) && !url.startsWith('data:') && !url.startsWith('blob:');
    page.on('request', (request) => void (isOutside(request.url()) && outside.push(request.url())));
    // No console error at all (a browser asks for /favicon.ico, a 404, unless the page names an icon).
    const errors: string[] = [];
    page.on('console', (message) => void (message.type() === 'error' && errors.push(message.text())));
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${base}/docs`);
    await page.waitForFunction(() => document.body.innerText.includes('Create an order from a quote'), undefined, { timeout: 60_000 });
    const text = await page.evaluate(() => document.body.innerText);
    for (const route of routes) expect(text).toContain(route.doc.summary);
    expect(text).toContain('Order book gateway: REST');
    expect(outside).toEqual([]);
    await page.waitForTimeout(500);
    expect(errors).toEqual([]);
  }, 90_000);
});
