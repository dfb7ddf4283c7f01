import { expect } from 'vitest';
import { it } from './support/app.ts';
import { makeOrder } from './support/fixtures.ts';
import { FAST, Receiver, register, sleep } from './support/webhook-receiver.ts';

/** A dead receiver costs only itself: the worker's loop keeps delivering to its neighbours. */

const TIMEOUT_MS = 3_000;

it('a fast endpoint gets its deliveries promptly while a dead neighbour times out', async ({ apps }) => {
  const fast = await new Receiver().start();
  const dead = await new Receiver().start();
  dead.answer = () => {}; // reads the request, never answers
  const app = await apps({
    freshDatabase: true,
    env: {
      ...FAST,
      WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      WEBHOOK_POLL_MS: '50',
      WEBHOOK_RETRY_BASE_MS: '60000',
      WEBHOOK_RETRY_MAX_MS: '60000',
    },
  });
  try {
    const { id: deadId } = await register(app, dead.url);
    await register(app, fast.url);
    const waitFor = async (done: () => boolean, ms: number) => {
      const end = Date.now() + ms;
      while (!done() && Date.now() < end) await sleep(10);
    };
    for (let i = 0; i < 3; i++) await makeOrder(app, {}, `early-${i}`);
    app.runtime.webhooks.start();
    await waitFor(() => fast.received.length >= 3 && dead.received.length >= 3, 5_000);
    expect(dead.received.length).toBeGreaterThanOrEqual(3);
    // The dead endpoint's attempts are now hanging; orders created meanwhile still reach the fast one.
    const createdAt = new Map<string, number>();
    for (let i = 0; i < 3; i++) createdAt.set((await makeOrder(app, {}, `late-${i}`)).order_id as string, Date.now());
    await waitFor(() => fast.received.length >= 6, 2 * TIMEOUT_MS);
    expect(fast.received).toHaveLength(6);
    const latencies = fast.received.map((got) => got.at - (createdAt.get(JSON.parse(got.body).data.order_id) ?? got.at));
    const latest = Math.max(...latencies);
    console.log(`fast endpoint beside a dead one: late deliveries after ${latencies.slice(3).join(', ')} ms`);
    expect(latest, `fast endpoint's latest late delivery, ms`).toBeLessThan(TIMEOUT_MS / 3);
    await sleep(TIMEOUT_MS);
    const deliveries = (await app.rest('GET', `/webhooks/${deadId}/deliveries`)).body.result;
    expect(
      deliveries.some((d: { attempt_log: { error: string }[] }) => d.attempt_log[0]?.error === `timed out after ${TIMEOUT_MS} ms`),
    ).toBe(true);
  } finally {
    await app.runtime.webhooks.stop();
    await app.close();
    await Promise.all([fast.close(), dead.close()]);
  }
  // Its own waits add up to 14 s, beside a fresh database's migrations.
}, 60_000);

it("a slow delivery takes one of its endpoint's slots, not all of them: other orders' deliveries go past it", async ({ apps }) => {
  const receiver = await new Receiver().start();
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  // The first request waits until the test lets it go; every later one is answered at once.
  receiver.answer = (n, res) => (n === 1 ? void held.then(() => res.end('ok')) : res.end('ok'));
  const app = await apps({ freshDatabase: true, env: { ...FAST, WEBHOOK_TIMEOUT_MS: '10000', WEBHOOK_POLL_MS: '50' } });
  try {
    await register(app, receiver.url, { events: ['order.status_changed'] });
    app.runtime.webhooks.start();
    await makeOrder(app, {}, 'slow-first');
    const waitFor = async (done: () => boolean) => {
      const end = Date.now() + 5_000;
      while (!done() && Date.now() < end) await sleep(10);
    };
    await waitFor(() => receiver.received.length >= 1);
    expect(receiver.received).toHaveLength(1);
    for (let i = 0; i < 3; i++) await makeOrder(app, {}, `behind-${i}`);
    await waitFor(() => receiver.received.length >= 4);
    // All three arrived while the first was still unanswered.
    expect(receiver.received).toHaveLength(4);
  } finally {
    release();
    await app.runtime.webhooks.stop();
    await app.close();
    await receiver.close();
  }
});
