import { Decimal } from 'decimal.js';
import { describe, expect } from 'vitest';
import { it, type Json, type TestApp } from './support/app.ts';
import { escrowEvent, postEvent } from './support/events.ts';
import { makeOrder, makeQuote, newSecret, orderBody } from './support/fixtures.ts';

/** GET /stats/series and Stats.series: the rollups by hour and day, checked against the orders themselves. */

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

interface Point {
  start: string;
  total_orders: number;
  completed_orders: number;
  cancelled_orders: number;
  volume_usd: number;
}

/** The series as the orders say it should be: every order read back with its status now, bucketed by creation. */
async function expectedSeries(t: TestApp, stepMs: number, last: number): Promise<Point[]> {
  const orders: Json[] = [];
  for (let page = 1; ; page++) {
    const reply = await t.rest('GET', `/orders?limit=100&page=${page}`);
    orders.push(...reply.body.result.data);
    if (page >= reply.body.result.total_pages) break;
  }
  const volumes = new Map(
    (await t.db.prisma.order.findMany({ select: { id: true, volumeUsd: true } })).map((o) => [o.id, new Decimal(o.volumeUsd.toFixed())]),
  );
  const current = Math.floor(t.clock.now().getTime() / stepMs) * stepMs;
  return Array.from({ length: last }, (_, i) => {
    const start = current - (last - 1 - i) * stepMs;
    const inBucket = orders.filter((o) => {
      const created = Date.parse(o.created_at);
      return created >= start && created < start + stepMs;
    });
    const count = (statuses: string[]) => inBucket.filter((o) => statuses.includes(o.status)).length;
    const volume = inBucket.reduce((sum, o) => sum.plus(volumes.get(o.order_id)!), new Decimal(0));
    return {
      start: new Date(start).toISOString().replace('.000Z', 'Z'),
      total_orders: inBucket.length,
      completed_orders: count(['completed', 'destination_claimed']),
      cancelled_orders: count(['cancelled', 'expired']),
      volume_usd: volume.toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toNumber(),
    };
  });
}

async function series(t: TestApp, query: string) {
  await t.statsCache.clear();
  const reply = await t.rest('GET', `/stats/series?${query}`);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.result as Point[];
}

/** An order taken to destination_claimed: created on both sides, its destination claimed with the secret. */
async function completedOrder(t: TestApp, userId: string) {
  const { secret, commitmentHash } = newSecret();
  const created = await t.rest('POST', '/orders', orderBody(await makeQuote(t), { commitment_hash: commitmentHash }, userId));
  const order = created.body.result;
  const at = t.clock.now();
  expect((await postEvent(t, order.source_intent.swap_id, escrowEvent('create', 1, {}, at))).status).toBe(200);
  expect((await postEvent(t, order.destination_intent.swap_id, escrowEvent('create', 2, {}, at))).status).toBe(200);
  const claim = escrowEvent('claim', 3, { commitment: secret }, at);
  expect((await postEvent(t, order.destination_intent.swap_id, claim)).status).toBe(200);
  return order;
}

describe('GET /stats/series', () => {
  it('counts every bucket from the rollups as the orders say, oldest first, zeros where none', async ({ t }) => {
    const empty = await series(t, 'interval=hour&last=3');
    expect(empty).toHaveLength(3);
    expect(empty.every((p) => p.total_orders === 0 && p.volume_usd === 0)).toBe(true);

    await makeOrder(t, {}, 'early'); // pending: expires while the series looks on
    t.clock.advance(3600);
    await completedOrder(t, 'claimer');
    await makeOrder(t, { source: 'ethereum:usdc', destination: 'base:usdc', amount: '1234567' }, 'early');
    t.clock.advance(2 * 3600); // an hour with no order between
    await makeOrder(t, { amount: '30000000' }, 'late');

    const hours = await series(t, 'interval=hour&last=5');
    expect(hours).toEqual(await expectedSeries(t, HOUR_MS, 5));
    // The shape itself: consecutive whole hours ending at now's, an empty hour, and expired orders as cancelled.
    const now = Math.floor(t.clock.now().getTime() / HOUR_MS) * HOUR_MS;
    expect(hours.map((p) => Date.parse(p.start))).toEqual([4, 3, 2, 1, 0].map((h) => now - h * HOUR_MS));
    expect(hours[3]).toMatchObject({ total_orders: 0, completed_orders: 0, cancelled_orders: 0, volume_usd: 0 });
    expect(hours[2]).toMatchObject({ total_orders: 2, completed_orders: 1 });
    expect(hours[4]).toMatchObject({ total_orders: 1, completed_orders: 0, cancelled_orders: 0 });
    expect(hours.reduce((n, p) => n + p.total_orders, 0)).toBe(4);

    const days = await series(t, 'interval=day&last=3');
    expect(days).toEqual(await expectedSeries(t, DAY_MS, 3));
    expect(days.reduce((n, p) => n + p.total_orders, 0)).toBe(4);

    // The deadline passes for the newest pending order: its hour turns it to cancelled, read from the clock.
    t.clock.advance(t.config.orderDeadlineSeconds + 60);
    const later = await series(t, 'interval=hour&last=168');
    expect(later).toHaveLength(168);
    expect(later).toEqual(await expectedSeries(t, HOUR_MS, 168));
    expect(later.reduce((n, p) => n + p.cancelled_orders, 0)).toBe(3);
  });

  it('answers the same through GraphQL', async ({ t }) => {
    await makeOrder(t, {}, 'gql-user');
    await t.statsCache.clear();
    const reply = await t.gql(
      `{ stats { series(interval: DAY, last: 2) { start totalOrders completedOrders cancelledOrders volumeUsd } } }`,
    );
    expect(reply.errors).toBeUndefined();
    const rest = await series(t, 'interval=day&last=2');
    expect(
      reply.data.stats.series.map((p: Json) => ({
        start: p.start,
        total_orders: p.totalOrders,
        completed_orders: p.completedOrders,
        cancelled_orders: p.cancelledOrders,
        volume_usd: p.volumeUsd,
      })),
    ).toEqual(rest);
    expect(rest).toEqual(await expectedSeries(t, DAY_MS, 2));
  });

  it('is cached like GET /stats, each interval and length on its own', async ({ t }) => {
    await t.statsCache.clear();
    const first = await t.rest('GET', '/stats/series?interval=hour&last=2');
    expect(first.headers.get('cache-control')).toBe('public, max-age=120');
    const before = first.body.result[1].total_orders;
    await makeOrder(t, {}, 'cache-user');
    t.clock.advance(30);
    const cached = await t.rest('GET', '/stats/series?interval=hour&last=2');
    expect(cached.headers.get('cache-control')).toBe('public, max-age=90');
    expect(cached.body.result).toEqual(first.body.result);
    // Another length is another entry: computed now, with the new order.
    const other = await t.rest('GET', '/stats/series?interval=hour&last=3');
    expect(other.headers.get('cache-control')).toBe('public, max-age=120');
    expect(other.body.result.at(-1).total_orders + other.body.result.at(-2).total_orders).toBe(
      first.body.result[0].total_orders + before + 1,
    );
    t.clock.advance(91);
    const fresh = await t.rest('GET', '/stats/series?interval=hour&last=2');
    expect(fresh.body.result).toEqual(await expectedSeries(t, HOUR_MS, 2));
  });

  it('refuses a bad interval or length with a 400 naming it', async ({ t }) => {
    const cases: [string, RegExp][] = [
      ['interval=week&last=2', /^interval must be one of hour, day$/],
      ['last=2', /^interval must be one of hour, day$/],
      ['interval=hour', /^last is required/],
      ['interval=hour&last=169', /^last must be an integer from 1 to 168$/],
      ['interval=day&last=366', /^last must be an integer from 1 to 365$/],
      ['interval=day&last=0', /^last must be an integer from 1 to 365$/],
      ['interval=hour&last=1.5', /^last must be an integer from 1 to 168$/],
    ];
    for (const [query, message] of cases) {
      const reply = await t.rest('GET', `/stats/series?${query}`);
      expect(reply.status, query).toBe(400);
      expect(reply.body).toEqual({ status: 'Error', result: expect.stringMatching(message) });
    }
    expect((await t.rest('GET', '/stats/series?interval=DAY&last=365')).status).toBe(200);
    const gql = await t.gql('{ stats { series(interval: HOUR, last: 200) { start } } }');
    expect(gql.errors?.[0]).toMatchObject({ message: 'last must be an integer from 1 to 168', extensions: { code: 'BAD_REQUEST' } });
  });
});
