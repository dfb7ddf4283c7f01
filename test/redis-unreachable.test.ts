import { describe, expect } from 'vitest';
import pino from 'pino';
import { connectRedis } from '../src/redis.ts';
import { it } from './support/app.ts';
import { escrowEvent, postEvent } from './support/events.ts';
import { makeOrder } from './support/fixtures.ts';
import { freePort } from './support/server-process.ts';
import { subscribeSse } from './support/sse.ts';

/**
 * REDIS_URL names a Redis that is not there (a port nothing listens on): every endpoint still answers,
 * local subscriptions still fire, and nothing is left unhandled (vitest fails a run on an unhandled
 * rejection). test/faults/redis-down.test.ts stops a real Redis under load and brings it back.
 */
// biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from its first argument's pattern; this one has none
it.override('appOptions', { scope: 'file' }, async ({}, { onCleanup }) => {
  const redis = connectRedis(`redis://127.0.0.1:${await freePort()}`, '', pino({ level: 'silent' }));
  // Runs after the app's own cleanup (it depends on these options), as the app closed before its Redis did.
  onCleanup(() => {
    redis.client.disconnect();
    redis.subscriber.disconnect();
  });
  return { redis };
});

describe('with REDIS_URL set and Redis unreachable', () => {
  it('writes, records escrow events and publishes, counting each failed publish in the metrics', async ({ t }) => {
    const publishFailures = async () =>
      (await t.runtime.metrics!.registry.getSingleMetric('orderbook_redis_failures_total')!.get()).values.find(
        (v) => v.labels.kind === 'publish',
      )?.value ?? 0;
    const before = await publishFailures();
    const order = await makeOrder(t);
    expect(order.status).toBe('pending');
    const reply = await postEvent(t, order.source_intent.swap_id, escrowEvent('create', 100));
    expect(reply.status).toBe(200);
    expect(reply.body.result.status).toBe('source_created');
    // Each change publishes two topics (the order, its user).
    await expect.poll(async () => (await publishFailures()) - before).toBeGreaterThanOrEqual(4);
  });

  it('computes /stats from its own cache', async ({ t }) => {
    const first = await t.rest('GET', '/stats');
    expect(first.status).toBe(200);
    expect(first.body.result.all_time.total_orders).toBeGreaterThanOrEqual(1);
    expect(first.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
  });

  it('delivers a change to a subscriber on the same instance', async ({ t }) => {
    const order = await makeOrder(t, {}, 'local-sub');
    const sub = await subscribeSse(t.app, 'subscription ($id: String!) { orderUpdated(orderId: $id) { orderId status } }', {
      id: order.order_id,
    });
    try {
      await postEvent(t, order.source_intent.swap_id, escrowEvent('create', 100));
      const update = await sub.inbox.take('SOURCE_CREATED while Redis is away', (o) => o.status === 'SOURCE_CREATED');
      expect(update.orderId).toBe(order.order_id);
    } finally {
      await sub.close();
    }
  });

  it('stays ready, and says Redis is down', async ({ t }) => {
    const ready = await t.rest('GET', '/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.result).toEqual({ database: 'ok', redis: 'down' });
  });
});
