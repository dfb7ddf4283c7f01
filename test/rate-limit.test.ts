import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { describe, expect } from 'vitest';
import { WATCHER_KEY, type TestApp, it } from './support/app.ts';
import { TestRedis } from './support/redis.ts';

// Each run has IPs of its own, so parallel runs on one Redis never share a budget.
const ip = () => `10.${randomBytes(3).join('.')}`;
const from = (address: string, extra: Record<string, string> = {}) => ({ 'x-forwarded-for': address, ...extra });
const API_KEY = `api-${randomBytes(8).toString('hex')}`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

it.override('appOptions', {
  env: { RATE_LIMIT_PER_IP: '5', RATE_LIMIT_PER_KEY: '8', TRUST_PROXY: 'true', API_KEYS: `other-key,${API_KEY}` },
});

describe('rate limits', () => {
  it('allows the budget per IP, then answers 429 with Retry-After and RateLimit headers', async ({ t }) => {
    const me = ip();
    for (let i = 1; i <= 5; i++) {
      const reply = await t.rest('GET', '/chains', undefined, from(me));
      expect(reply.status).toBe(200);
      expect(reply.headers.get('ratelimit-limit')).toBe('5');
      expect(reply.headers.get('ratelimit-remaining')).toBe(String(5 - i));
    }
    const refused = await t.rest('GET', '/chains', undefined, from(me));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    expect(refused.body).toEqual({ status: 'Error', result: expect.stringContaining('rate limit of 5 requests per minute') });
    // GraphQL shares the budget; another IP has its own; health is never limited.
    expect(
      (
        await t.app.fetch('http://test/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...from(me) },
          body: '{"query":"{ __typename }"}',
        })
      ).status,
    ).toBe(429);
    expect((await t.rest('GET', '/chains', undefined, from(ip()))).status).toBe(200);
    expect((await t.rest('GET', '/health', undefined, from(me))).status).toBe(200);
  });

  it('takes the hop the trusted proxy appended (the last), so a client cannot pick the IP it is counted as', async ({ t }) => {
    const me = ip();
    const statuses = [];
    // A fresh made-up first hop per request, as a client behind the proxy can send: all one caller.
    for (let i = 0; i < 6; i++) statuses.push((await t.rest('GET', '/chains', undefined, from(`${ip()}, ${me}`))).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    // A header of thousands of hops is read from its end.
    const long = `${Array.from({ length: 2000 }, () => '198.51.100.1').join(',')}, ${ip()}`;
    expect((await t.rest('GET', '/chains', undefined, from(long))).headers.get('ratelimit-remaining')).toBe('4');
  });

  it('counts a caller with a verified key by its key, not its IP', async ({ t }) => {
    const statuses = [];
    for (let i = 0; i < 9; i++) statuses.push((await t.rest('GET', '/chains', undefined, from(ip(), bearer(API_KEY)))).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 429]);
    // The watcher key is verified too, with a budget of its own.
    const watcher = await t.rest('GET', '/chains', undefined, from(ip(), bearer(WATCHER_KEY)));
    expect(watcher.status).toBe(200);
    expect(watcher.headers.get('ratelimit-limit')).toBe('8');
  });

  it('counts an unknown bearer token against the IP: a fresh token per request buys nothing', async ({ t }) => {
    const me = ip();
    const statuses = [];
    for (let i = 0; i < 6; i++) {
      const reply = await t.rest('GET', '/chains', undefined, from(me, bearer(`made-up-${randomBytes(8).toString('hex')}`)));
      statuses.push(reply.status);
      expect(reply.headers.get('ratelimit-limit')).toBe('5');
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    // The IP's budget is spent whatever the token; a verified key still has its own.
    expect((await t.rest('GET', '/chains', undefined, from(me))).status).toBe(429);
    const keyed = await t.rest('GET', '/chains', undefined, from(me, bearer('other-key')));
    expect(keyed.status).toBe(200);
    expect(keyed.headers.get('ratelimit-limit')).toBe('8');
  });
});

describe('rate limits shared through Redis by two instances', () => {
  let a: TestApp;
  let b: TestApp;
  // This run's keys only, so the counters it reads are its own.
  const redis = new TestRedis();
  const keyPrefix = redis.keyPrefix;
  let observer: Redis;
  it.beforeAll(async ({ apps }) => {
    observer = redis.observer();
    const instance = () =>
      apps({
        redis: redis.pair(),
        env: { RATE_LIMIT_PER_IP: '4', RATE_LIMIT_PER_KEY: '4', TRUST_PROXY: 'true', API_KEYS: API_KEY },
      });
    a = await instance();
    b = await instance();
  });
  // The apps close before the Redis they use.
  it.afterAll(async () => {
    await a.close();
    await b.close();
    redis.disconnect();
  });

  it('creates no counter for an unverified key', async () => {
    const me = ip();
    const token = `made-up-${randomBytes(8).toString('hex')}`;
    expect((await a.rest('GET', '/assets', undefined, from(me, bearer(token)))).status).toBe(200);
    const counters = await observer.keys(`${keyPrefix}*`);
    expect(counters).toContain(`${keyPrefix}orderbook:rl:ip:${me}`);
    expect(counters.filter((key) => key.includes(':rl:key:'))).toEqual([]);
    // A verified key gets its counter (by its hash, never the key itself).
    expect((await a.rest('GET', '/assets', undefined, from(me, bearer(API_KEY)))).status).toBe(200);
    const keyed = (await observer.keys(`${keyPrefix}*`)).filter((key) => key.includes(':rl:key:'));
    expect(keyed).toHaveLength(1);
    expect(keyed[0]).not.toContain(API_KEY);
  });

  it('spends one budget across both instances', async () => {
    const me = ip();
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await (i % 2 ? a : b).rest('GET', '/assets', undefined, from(me))).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
  });
});
