import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildExplorer } from '../prisma/scripts/build-explorer.ts';
import type { Json, TestApp } from './support/app.ts';
import { type BrowserApp, openBrowserApp } from './support/browser.ts';
import { TEST_DB } from './support/database.ts';
import { escrowEvent, postEvent } from './support/events.ts';
import { makeOrder, makeQuote, newSecret, orderBody } from './support/fixtures.ts';

/**
 * The explorer page in a real browser (Debian's Chromium), against the app on a real port: every search,
 * every deep link, a live update, the charts, and that the page stays on this machine, light, free of console
 * errors and accessible. Once, in the PGlite project.
 */

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const FIRST_VIEW_LIMIT = 500 * 1024;
const WAIT = { timeout: 20_000 };

interface Opened {
  page: Page;
  /** Requests to anywhere but the app, console errors and uncaught exceptions seen so far. */
  outside: string[];
  errors: string[];
  /** Uncompressed bytes of every response so far. */
  bytes(): Promise<number>;
  /** Subscription streams the server has opened. */
  streams: number;
  close(): Promise<void>;
}

describe.skipIf(TEST_DB !== 'pglite')('explorer in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  let opened: BrowserApp | undefined;

  beforeAll(async () => {
    // The page the server serves is the one `npm run build` makes; build it from this checkout's sources.
    await buildExplorer(fileURLToPath(new URL('../dist/explorer', import.meta.url)));
    opened = await openBrowserApp();
    ({ t, browser, base } = opened);
  }, 90_000);

  afterAll(() => opened?.close());

  async function open(path: string, options: { bypassCSP?: boolean } = {}): Promise<Opened> {
    const context = await browser.newContext({ bypassCSP: options.bypassCSP ?? false });
    const page = await context.newPage();
    const outside: string[] = [];
    const errors: string[] = [];
    const bodies: Promise<number>[] = [];
    let streams = 0;
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(`${base}/`) && !url.startsWith('data:') && !url.startsWith('blob:')) outside.push(url);
    });
    page.on('response', (response) => {
      // A subscription's stream never ends, and carries no part of the page.
      if (response.headers()['content-type']?.startsWith('text/event-stream')) {
        streams += 1;
        return;
      }
      bodies.push(
        response.body().then(
          (body) => body.length,
          () => 0,
        ),
      );
    });
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${base}${path}`);
    return {
      page,
      outside,
      errors,
      bytes: async () => (await Promise.all(bodies)).reduce((sum, n) => sum + n, 0),
      get streams() {
        return streams;
      },
      close: () => context.close(),
    };
  }

  /** What every view must hold to: nothing fetched from outside, no console error. */
  async function finish(view: Opened) {
    expect(view.outside).toEqual([]);
    expect(view.errors).toEqual([]);
    await view.close();
  }

  async function search(page: Page, term: string) {
    const box = page.getByRole('searchbox', { name: 'Order id, transaction hash, swap id or user' });
    await box.fill(term);
    await box.press('Enter');
    await page.getByRole('heading', { name: `Results for ${term}`, exact: true }).waitFor(WAIT);
    // The answer, not the note shown while it loads (also a status).
    await page.locator('.not-found, table.orders, .user-match, [role=alert]').first().waitFor(WAIT);
  }

  /** An order whose secret is known, so the relayer can be asked to claim it. */
  async function claimableOrder(userId: string): Promise<{ order: Json; secret: string }> {
    const { secret, commitmentHash } = newSecret();
    const reply = await t.rest('POST', '/orders', orderBody(await makeQuote(t), { commitment_hash: commitmentHash }, userId));
    expect(reply.status).toBe(201);
    return { order: reply.body.result, secret };
  }

  it('opens on the statistics, drawn as charts, from this server only and under 500 KB', async () => {
    await makeOrder(t, {}, 'stats-user-1');
    await makeOrder(t, { source: 'ethereum:wbtc', destination: 'bitcoin:btc', amount: '20000000' }, 'stats-user-2');
    const view = await open('/explorer');
    const { page } = view;
    await page.locator('[data-testid=series-chart] canvas').waitFor(WAIT);
    await page.waitForLoadState('networkidle');
    // The first view: the shell, the script, the style sheet, the icon and the statistics' answer.
    const weight = await view.bytes();
    expect(weight).toBeGreaterThan(10_000);
    expect(weight).toBeLessThanOrEqual(FIRST_VIEW_LIMIT);

    const stats = (await t.gql('{ stats { allTime { totalOrders } topAssets { symbol } topChainPairs { sourceChain } } }')).data.stats;
    expect(stats.allTime.totalOrders).toBeGreaterThanOrEqual(2);
    const allTime = page.getByTestId('all-time');
    expect(await allTime.locator('dt:text-is("Orders") + dd').textContent()).toBe(String(stats.allTime.totalOrders));

    // The series: uPlot drew the all-orders line (its colour) on the canvas, over the last bucket's orders.
    const linePixels = await page.locator('[data-testid=series-chart] canvas').evaluate((canvas: HTMLCanvasElement) => {
      const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
      let count = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i] === 0x1d && data[i + 1] === 0x4e && data[i + 2] === 0xd8) count += 1;
      return count;
    });
    expect(linePixels).toBeGreaterThan(0);
    const lastBucket = await page.locator('.chart details tbody tr').last().locator('td').nth(1).textContent();
    expect(Number(lastBucket)).toBeGreaterThanOrEqual(2);

    // The top lists: one bar per entry, labelled with the API's figures.
    expect(await page.locator('[data-testid=top-assets] rect').count()).toBe(stats.topAssets.length);
    expect(await page.locator('[data-testid=top-pairs] rect').count()).toBe(stats.topChainPairs.length);
    expect(await page.getByTestId('top-assets').textContent()).toContain(stats.topAssets[0].symbol);

    // Switching the series to hours redraws it from the API without a reload.
    await page.getByLabel('Series').selectOption('HOUR');
    await page.locator('figure.chart figcaption', { hasText: 'Orders per hour, last 48 hours' }).waitFor(WAIT);
    await page.locator('[data-testid=series-chart] canvas').waitFor(WAIT);

    await page.screenshot({ path: '/tmp/explorer-stats.png', fullPage: true });
    await finish(view);
  }, 90_000);

  it('finds an order by its id, a transaction hash (any letter case), a swap id, and a user by id', async () => {
    const order = await makeOrder(t, {}, 'search-user');
    const create = escrowEvent('create', 7);
    expect((await postEvent(t, order.destination_intent.swap_id, create)).status).toBe(200);
    const view = await open('/explorer');
    const { page } = view;
    await page.evaluate(() => Object.assign(window, { sameDocument: true }));
    const orderLink = page.locator(`a[href="/explorer/orders/${order.order_id}"]`);

    await search(page, order.order_id);
    await expect(page.locator('caption', { hasText: 'Order with this id' }).count()).resolves.toBe(1);
    expect(await orderLink.count()).toBe(1);

    // Never, for a frame, the previous term's matches under the new term's heading.
    const txTerm = create.tx_hash.toUpperCase().replace('0X', '0x');
    await page.evaluate((term) => {
      const seen = { staleFrames: 0 };
      const watch = new MutationObserver(() => {
        const heading = document.getElementById('results-heading')?.textContent ?? '';
        const captions = [...document.querySelectorAll('caption')].map((caption) => caption.textContent ?? '');
        if (heading.includes(term) && captions.some((caption) => caption.includes('Order with this id'))) seen.staleFrames += 1;
      });
      watch.observe(document.body, { subtree: true, childList: true, characterData: true });
      Object.assign(window, { seen, watch });
    }, txTerm);
    await search(page, txTerm);
    const staleFrames = await page.evaluate(() => {
      const { seen, watch } = window as unknown as { seen: { staleFrames: number }; watch: MutationObserver };
      watch.disconnect();
      return seen.staleFrames;
    });
    expect(staleFrames).toBe(0);
    await expect(page.locator('caption', { hasText: 'Orders with this transaction' }).count()).resolves.toBe(1);
    expect(await orderLink.count()).toBe(1);

    await search(page, order.source_intent.swap_id);
    await expect(page.locator('caption', { hasText: 'Order with this swap (escrow) id' }).count()).resolves.toBe(1);
    expect(await orderLink.count()).toBe(1);
    await page.screenshot({ path: '/tmp/explorer-results.png', fullPage: true });

    await search(page, 'search-user');
    expect(await page.locator('.user-match').textContent()).toBe('User search-user: 1 order.');
    await page.getByRole('link', { name: 'search-user' }).click();
    await orderLink.waitFor(WAIT);
    expect(new URL(page.url()).pathname).toBe('/explorer/users/search-user');

    // Nothing matching, and a hash no chain could make: "not found", never an empty page.
    for (const term of ['no-such-thing-anywhere', '0xnothex']) {
      await search(page, term);
      expect(await page.getByRole('heading', { name: 'Not found' }).count()).toBe(1);
    }
    // All of it in one document: searching never loaded the page again.
    expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
    await page.screenshot({ path: '/tmp/explorer-search.png', fullPage: true });
    await finish(view);
  }, 90_000);

  it('opens each deep link: an order, a user page by page, a transaction, and says when there is none', async () => {
    const first = await makeOrder(t, {}, 'deep/user 1');
    const second = await makeOrder(t, {}, 'deep/user 1');
    const create = escrowEvent('create', 9);
    expect((await postEvent(t, first.source_intent.swap_id, create)).status).toBe(200);

    const orderView = await open(`/explorer/orders/${first.order_id}`);
    await orderView.page.getByTestId('order-status').waitFor(WAIT);
    expect(await orderView.page.getByTestId('order-status').textContent()).toBe('SOURCE_CREATED');
    const text = await orderView.page.locator('main').textContent();
    for (const value of [first.source_intent.swap_id, first.destination_intent.swap_id, create.tx_hash, 'deep/user 1'])
      expect(text).toContain(value);
    await finish(orderView);

    const userView = await open(`/explorer/users/${encodeURIComponent('deep/user 1')}?limit=1`);
    const { page } = userView;
    const orderLinks = () =>
      page.locator('table.orders a[href^="/explorer/orders/"]').evaluateAll((links) => links.map((a) => a.getAttribute('href')));
    await page.getByText('2 orders; page 1 of 2.').waitFor(WAIT);
    const onFirst = await orderLinks();
    await page.getByRole('link', { name: 'Older orders' }).click();
    await page.getByText('2 orders; page 2 of 2.').waitFor(WAIT);
    const onSecond = await orderLinks();
    await page.setViewportSize({ width: 420, height: 800 });
    await page.screenshot({ path: '/tmp/explorer-user-narrow.png', fullPage: true });
    // One order a page, both of the user's orders over the two (made in the same second, either may come first).
    expect([...onFirst, ...onSecond].sort()).toEqual([`/explorer/orders/${first.order_id}`, `/explorer/orders/${second.order_id}`].sort());
    await page.goBack();
    await page.getByText('2 orders; page 1 of 2.').waitFor(WAIT);
    await finish(userView);

    const txView = await open(`/explorer/tx/${create.tx_hash}`);
    await txView.page.getByTestId('order-status').waitFor(WAIT);
    expect(await txView.page.getByRole('heading', { name: `Order ${first.order_id}` }).count()).toBe(1);
    await finish(txView);

    for (const path of [
      `/explorer/orders/${'0'.repeat(64)}`,
      '/explorer/orders/not-an-id',
      '/explorer/tx/0x00',
      '/explorer/users/nobody-here',
    ]) {
      const missing = await open(path);
      await missing.page.getByRole('heading', { name: 'Not found' }).waitFor(WAIT);
      await finish(missing);
    }
  }, 120_000);

  it('follows an order live: escrow events change its status and timeline without a reload', async () => {
    const { order, secret } = await claimableOrder('live-user');
    const view = await open(`/explorer/orders/${order.order_id}`);
    const { page } = view;
    const status = page.getByTestId('order-status');
    await status.waitFor(WAIT);
    expect(await status.textContent()).toBe('PENDING');
    expect(await page.getByTestId('claim').textContent()).toBe('No relayer claim requested.');
    await page.evaluate(() => Object.assign(window, { sameDocument: true }));
    // Events recorded before the subscription is open would not be pushed: wait for its stream.
    await expect.poll(() => view.streams, WAIT).toBe(1);

    const sourceCreate = escrowEvent('create', 20);
    expect((await postEvent(t, order.source_intent.swap_id, sourceCreate)).status).toBe(200);
    await page.getByText('SOURCE_CREATED', { exact: true }).waitFor(WAIT);
    await page.getByRole('link', { name: sourceCreate.tx_hash }).waitFor(WAIT);

    const destinationCreate = escrowEvent('create', 21);
    expect((await postEvent(t, order.destination_intent.swap_id, destinationCreate)).status).toBe(200);
    await page.getByText('DESTINATION_CREATED', { exact: true }).waitFor(WAIT);
    expect((await t.rest('POST', '/relayer/claims', { order_id: order.order_id, commitment: secret })).status).toBe(202);
    // The claim's state is read again with each update of the order: the user's claim on chain is the next.
    const destinationClaim = escrowEvent('claim', 22, { commitment: secret });
    expect((await postEvent(t, order.destination_intent.swap_id, destinationClaim)).status).toBe(200);
    await page.getByText('DESTINATION_CLAIMED', { exact: true }).waitFor(WAIT);
    // No worker runs in the test app: the claim stays queued.
    await page.getByTestId('claim').getByText('QUEUED', { exact: true }).waitFor(WAIT);
    expect(await page.locator('table.timeline tbody tr').count()).toBe(3);
    expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
    await page.screenshot({ path: '/tmp/explorer-order.png', fullPage: true });
    await finish(view);
  }, 90_000);

  it('has no serious or critical accessibility violation (axe-core) and works from the keyboard', async () => {
    const order = await makeOrder(t, {}, 'a11y-user');
    const paths = [
      '/explorer',
      `/explorer/orders/${order.order_id}`,
      '/explorer/users/a11y-user',
      `/explorer?q=${order.order_id}`,
      '/explorer?q=nothing-here',
    ];
    for (const path of paths) {
      // axe is injected as a script of the test's own, which the page's policy would refuse.
      const view = await open(path, { bypassCSP: true });
      await view.page.locator('main h2').first().waitFor(WAIT);
      // Loaded: no view is still waiting for its answer (an order's subscription keeps the network busy).
      await view.page.getByText(/^Loading /).waitFor({ ...WAIT, state: 'detached' });
      await view.page.addScriptTag({ path: AXE });
      const violations = await view.page.evaluate(async () => {
        const axe = (window as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: unknown[] }[] }> } })
          .axe;
        const result = await axe.run();
        return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.nodes.length})`);
      });
      expect(violations, path).toEqual([]);
      await finish(view);
    }

    // From the keyboard alone: Tab to the search box, type, Enter; Tab to the result and follow it.
    const view = await open('/explorer');
    const { page } = view;
    await page.locator('main h2').first().waitFor(WAIT);
    const searchFocused = () => page.evaluate(() => document.activeElement?.getAttribute('type') === 'search');
    // The skip link and the title come first.
    for (let i = 0; i < 3 && !(await searchFocused()); i += 1) await page.keyboard.press('Tab');
    expect(await searchFocused()).toBe(true);
    await page.keyboard.type(order.order_id);
    await page.keyboard.press('Enter');
    const link = page.locator(`a[href="/explorer/orders/${order.order_id}"]`);
    await link.waitFor(WAIT);
    await link.focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('order-status').waitFor(WAIT);
    await finish(view);
  }, 120_000);
});
