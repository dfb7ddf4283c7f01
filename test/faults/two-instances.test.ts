import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USER_BTC, USER_EVM } from '../support/fixtures.ts';
import { freshDatabase, postJson, startServer, type ServerProcess } from './server.ts';

/** Two server processes on one PostgreSQL and one Redis behave as one service. */
describe('two instances', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let a: ServerProcess;
  let b: ServerProcess;
  beforeAll(async () => {
    db = await freshDatabase();
    // A key prefix of this run's own keeps parallel runs' counters and cache apart.
    const env = {
      DATABASE_URL: db.url,
      REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
      REDIS_KEY_PREFIX: `test:${randomBytes(6).toString('hex')}:`,
      RATE_LIMIT_PER_IP: '1000000',
      TRUST_PROXY: 'true',
    };
    [a, b] = await Promise.all([startServer(env), startServer(env)]);
  });
  afterAll(async () => {
    await Promise.all([a?.kill('SIGKILL'), b?.kill('SIGKILL')]);
    await db?.drop();
  });

  it('consume a quote raced across both exactly once', async () => {
    const quote = (
      await postJson(a.base, '/quotes', {
        source: { asset: 'bitcoin:btc', amount: '10000000' },
        destination: { asset: 'ethereum:wbtc' },
      })
    ).body.result;
    const attempts = 30;
    const replies = await Promise.all(
      Array.from({ length: attempts }, (_, i) =>
        postJson(i % 2 ? a.base : b.base, '/orders', {
          user_id: `racer-${i}`,
          quote_id: quote.quote_id,
          source: { asset: quote.source.asset, recipient: USER_BTC, amount: quote.source.amount },
          destination: { asset: quote.destination.asset, recipient: USER_EVM, amount: quote.destination.amount },
          commitment_hash: createHash('sha256').update(randomBytes(32)).digest('hex'),
        }),
      ),
    );
    const statuses = replies.map((r) => r.status);
    console.log('quote race across two instances', {
      attempts,
      created: statuses.filter((s) => s === 201).length,
      conflicts: statuses.filter((s) => s === 409).length,
    });
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(attempts - 1);
  });

  it('share the stats cache and the rate-limit budget', async () => {
    const first = await fetch(`${a.base}/stats`);
    const fromA = await first.json();
    const second = await fetch(`${b.base}/stats`);
    const fromB = await second.json();
    expect(fromB).toEqual(fromA);
    expect(Number(second.headers.get('cache-control')!.match(/max-age=(\d+)/)![1])).toBeLessThanOrEqual(120);

    const ip = `10.${randomBytes(3).join('.')}`;
    const remaining: number[] = [];
    for (let i = 0; i < 4; i++) {
      const response = await fetch(`${(i % 2 ? a : b).base}/chains`, { headers: { 'x-forwarded-for': ip } });
      remaining.push(Number(response.headers.get('ratelimit-remaining')));
    }
    // One budget: each instance sees the other's spending.
    expect(remaining).toEqual([999999, 999998, 999997, 999996]);
  });
});
