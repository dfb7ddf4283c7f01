import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium } from 'playwright-core';
import { createTestApp, type TestApp } from './app.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** A test app on a real port and Debian's Chromium to look at it (.ci/run installs it; no browser download works here). */
export interface BrowserApp {
  t: TestApp;
  base: string;
  browser: Browser;
  close(): Promise<void>;
}

export async function openBrowserApp(): Promise<BrowserApp> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install chromium (or set CHROMIUM_PATH)`);
  const t = await createTestApp();
  const server: Server = createServer(t.app).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  return {
    t,
    base,
    browser,
    async close() {
      await browser.close();
      server.close();
      await t.close();
    },
  };
}
