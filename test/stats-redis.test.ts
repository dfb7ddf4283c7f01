import type { Redis } from 'ioredis';
import { describe, expect } from 'vitest';
import { memoryStatsCache, redisStatsCache } from '../src/domain/stats-cache.ts';
import { it, type TestApp } from './support/app.ts';
import { TestRedis } from './support/redis.ts';
import { makeOrder } from './support/fixtures.ts';

/** Two instances on one database and one Redis share a single stats cache entry. */
describe('stats cache shared through Redis', () => {
  let a: TestApp;
  let b: TestApp;
  // Each run gets its own key space, so parallel runs on one Redis never meet.
  const redis = new TestRedis();
  let first: Redis | undefined;

  it.beforeAll(async ({ apps }) => {
    const instance = () => {
      const client = redis.client();
      first ??= client;
      return apps({ statsCache: redisStatsCache(client, 120, { fallback: memoryStatsCache(120) }) });
    };
    a = await instance();
    b = await instance();
  });
  // The apps close before the Redis they use.
  it.afterAll(async () => {
    await first?.del('orderbook:stats:v1', 'orderbook:stats:v1:series');
    await a?.close();
    await b?.close();
    redis.disconnect();
  });

  it('serves what one instance computed to the other until it expires', async () => {
    await makeOrder(a, {}, 'first');
    const fromA = await a.rest('GET', '/stats');
    expect(fromA.body.result.all_time.total_orders).toBe(1);
    expect(fromA.headers.get('cache-control')).toBe('public, max-age=120');

    await makeOrder(b, {}, 'second');
    const fromB = await b.rest('GET', '/stats');
    // B did not compute: it served A's entry, which predates the second order.
    expect(fromB.body.result.all_time.total_orders).toBe(1);
    expect(fromB.headers.get('cache-control')).toMatch(/^public, max-age=(119|120)$/);

    await b.statsCache.clear();
    const fresh = await a.rest('GET', '/stats');
    expect(fresh.body.result.all_time.total_orders).toBe(2);
  });

  it('shares the stats series the same way, each length on its own', async () => {
    await a.statsCache.clear();
    const total = (reply: { body: { result: { total_orders: number }[] } }) =>
      reply.body.result.reduce((n, point) => n + point.total_orders, 0);
    const fromA = await a.rest('GET', '/stats/series?interval=day&last=2');
    expect(fromA.headers.get('cache-control')).toBe('public, max-age=120');
    const before = total(fromA);

    await makeOrder(b, {}, 'third');
    const fromB = await b.rest('GET', '/stats/series?interval=day&last=2');
    expect(fromB.body.result).toEqual(fromA.body.result);
    expect(fromB.headers.get('cache-control')).toMatch(/^public, max-age=(119|120)$/);
    // Another length is not A's entry: B computes it, with the new order.
    expect(total(await b.rest('GET', '/stats/series?interval=day&last=3'))).toBe(before + 1);

    await b.statsCache.clear();
    expect(total(await a.rest('GET', '/stats/series?interval=day&last=2'))).toBe(before + 1);
  });
});
