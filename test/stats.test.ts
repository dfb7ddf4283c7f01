import { describe, expect } from 'vitest';
import { it } from './support/app.ts';
import { makeOrder } from './support/fixtures.ts';

describe('GET /stats', () => {
  it('counts, buckets and sums volume exactly, by window', async ({ apps }) => {
    // It counts every order in its database, from none: a database and an app (and clock) of its own.
    const t = await apps({ freshDatabase: true });
    const empty = await t.rest('GET', '/stats');
    expect(empty.status).toBe(200);
    expect(empty.body.result.all_time).toEqual({
      total_orders: 0,
      completed_orders: 0,
      in_progress_orders: 0,
      cancelled_orders: 0,
      unique_users: 0,
      total_volume_usd: 0,
      avg_completion_time_secs: 0,
    });
    await t.statsCache.clear();

    const assets = (await t.rest('GET', '/assets')).body.result as { id: string; price_usd: string }[];
    const price = (id: string) => assets.find((a) => a.id === id)!.price_usd;
    // An old order (8 days ago) and three recent ones.
    await makeOrder(t, { source: 'ethereum:usdc', destination: 'base:usdc', amount: '1234567' }, 'old');
    t.clock.advance(8 * 86400);
    await makeOrder(t, { amount: '10000000' }, 'alice');
    await makeOrder(t, { amount: '20000000' }, 'alice');
    await makeOrder(t, { source: 'ethereum:usdc', destination: 'base:usdc', amount: '1000000' }, 'bob');

    const reply = await t.rest('GET', '/stats');
    const stats = reply.body.result;
    const btcVolume = 0.3 * Number(price('bitcoin:btc'));
    const usdcRecent = 1 * Number(price('ethereum:usdc'));
    const usdcOld = 1.234567 * Number(price('ethereum:usdc'));
    const cents = (n: number) => Math.round(n * 100) / 100;
    // The 8-day-old order never saw a source escrow: it is expired, in the cancelled bucket.
    expect(stats.all_time).toMatchObject({ total_orders: 4, in_progress_orders: 3, cancelled_orders: 1, unique_users: 3 });
    expect(stats.all_time.total_volume_usd).toBeCloseTo(cents(btcVolume + usdcRecent + usdcOld), 2);
    expect(stats.last_7d).toMatchObject({ total_orders: 3, unique_users: 2 });
    expect(stats.last_24h.total_volume_usd).toBeCloseTo(cents(btcVolume + usdcRecent), 2);
    // Two orders each: the tie goes to the larger volume.
    expect(stats.top_chain_pairs.map((p: { source_chain: string; order_count: number }) => [p.source_chain, p.order_count])).toEqual([
      ['bitcoin', 2],
      ['ethereum', 2],
    ]);
    expect(stats.top_assets).toContainEqual(expect.objectContaining({ asset: 'bitcoin:btc', symbol: 'BTC', order_count: 2 }));

    // After the deadline, pending orders count as cancelled (expired).
    t.clock.advance(t.config.orderDeadlineSeconds);
    await t.statsCache.clear();
    const later = (await t.rest('GET', '/stats')).body.result;
    expect(later.all_time).toMatchObject({ total_orders: 4, cancelled_orders: 4, in_progress_orders: 0 });
  });

  it('is cached for two minutes with Cache-Control', async ({ t, clock }) => {
    await t.statsCache.clear();
    const first = await t.rest('GET', '/stats');
    expect(first.headers.get('cache-control')).toBe('public, max-age=120');
    const before = first.body.result.all_time.total_orders;
    await makeOrder(t, {}, 'carol');
    clock.advance(30);
    const cached = await t.rest('GET', '/stats');
    expect(cached.body.result.all_time.total_orders).toBe(before);
    expect(cached.headers.get('cache-control')).toBe('public, max-age=90');
    clock.advance(91);
    const fresh = await t.rest('GET', '/stats');
    expect(fresh.body.result.all_time.total_orders).toBe(before + 1);
  });

  it('answers the same through GraphQL', async ({ t }) => {
    await makeOrder(t, {}, 'dave');
    await t.statsCache.clear();
    const reply = await t.gql(`{ stats { allTime { totalOrders } last24h { totalOrders } topAssets { asset } } }`);
    expect(reply.errors).toBeUndefined();
    expect(reply.data.stats.allTime.totalOrders).toBeGreaterThan(0);
  });
});
