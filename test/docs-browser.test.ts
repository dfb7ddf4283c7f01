import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../src/rest/routes.ts';
import { type BrowserApp, openBrowserApp } from './support/browser.ts';
import { TEST_DB } from './support/database.ts';

/** /docs in Debian's Chromium: Redoc renders /openapi.json with nothing loaded from outside. Once, on PGlite. */
describe.skipIf(TEST_DB !== 'pglite')('/docs in Chromium', () => {
  let browser: Browser;
  let base: string;
  let opened: BrowserApp | undefined;

  beforeAll(async () => {
    opened = await openBrowserApp();
    ({ browser, base } = opened);
  }, 60_000);

  afterAll(() => opened?.close());

  it('renders every operation of the document, loading nothing from outside', async () => {
    const page = await browser.newPage();
    // Requests to other hosts that got an answer; the page's Content-Security-Policy makes the browser
    // refuse the one Redoc tries (its footer logo on Redocly's CDN) before it leaves the machine.
    const outside: string[] = [];
    const refused: string[] = [];
    const isOutside = (url: string) => !url.startsWith(base) && !url.startsWith('data:') && !url.startsWith('blob:');
    page.on('requestfinished', (request) => void (isOutside(request.url()) && outside.push(request.url())));
    page.on('requestfailed', (request) => {
      if (!isOutside(request.url())) return;
      if (/BLOCKED_BY_CSP|^csp$/.test(request.failure()?.errorText ?? '')) refused.push(request.url());
      else outside.push(`${request.url()} (${request.failure()?.errorText})`);
    });
    // No console error but that refusal (a browser asks for /favicon.ico, a 404, unless the page names an icon).
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().includes('https://cdn.redoc.ly/')) errors.push(message.text());
    });
    await page.goto(`${base}/docs`);
    await page.waitForFunction(() => document.body.innerText.includes('Create an order from a quote'), undefined, { timeout: 60_000 });
    const text = await page.evaluate(() => document.body.innerText);
    for (const route of routes) expect(text).toContain(route.doc.summary);
    expect(text).toContain('Order book gateway: REST');
    expect(outside).toEqual([]);
    await page.waitForTimeout(500);
    expect(errors).toEqual([]);
    expect(refused.every((url) => url.startsWith('https://cdn.redoc.ly/'))).toBe(true);
  }, 90_000);
});
