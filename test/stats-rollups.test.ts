import { Decimal } from 'decimal.js';
import { describe, expect } from 'vitest';
import { seed } from '../prisma/scripts/seed/index.ts';
import { loadConfig } from '../src/config.ts';
import type { Database } from '../src/db/database.ts';
import { loadRegistry } from '../src/domain/registry/registry.ts';
import { computeStats, type Stats, type StatsWindow } from '../src/domain/stats.ts';
import { countLivePending } from '../src/domain/status/live-pending.ts';
import { countByStatus } from '../src/domain/status/count.ts';
import { ORDER_STATUSES, STATUS_BUCKET, statusAt, statusWhere } from '../src/domain/status/rule.ts';
import { it } from './support/app.ts';

/**
 * /stats reads rollups, plus the deltas that triggers append on every write to `orders` until the keeper
 * folds them. The oracle here reads every order and applies the status rule in code: whatever the writes
 * (single creates, escrow events, bulk statements, deletes), before and after a fold, and whatever the
 * clock, both must agree to the cent.
 */

const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent' });
const registry = loadRegistry(undefined);
const HOUR = 3_600_000;

let db: Database;
// The file's database (the fixture's), seeded once; no app reads it here.
it.beforeAll(async ({ db: fileDb }) => {
  db = fileDb;
  // Row by row through the domain (one order per statement), then in bulk (thousands per statement).
  await seed({ db, config, orders: 60, users: 12, days: 9, seed: 'rollups', mode: 'domain' });
  await seed({ db, config, orders: 60, users: 12, days: 9, seed: 'rollups-bulk', mode: 'bulk' });
}, 120_000);

async function oracle(now: Date): Promise<Omit<Stats, 'computedAt'>> {
  const orders = await db.prisma.order.findMany();
  const window = (since: Date | null): StatsWindow => {
    const rows = orders.filter((o) => since === null || o.createdAt >= since);
    const bucket = (o: (typeof rows)[number]) => STATUS_BUCKET[statusAt(o, now)];
    const completed = rows.filter((o) => bucket(o) === 'completed');
    const timed = completed.filter((o) => o.completedAt !== null);
    const secs = timed.reduce((sum, o) => sum.plus((o.completedAt!.getTime() - o.createdAt.getTime()) / 1000), new Decimal(0));
    return {
      totalOrders: rows.length,
      completedOrders: completed.length,
      inProgressOrders: rows.filter((o) => bucket(o) === 'in_progress').length,
      cancelledOrders: rows.filter((o) => bucket(o) === 'cancelled').length,
      uniqueUsers: new Set(rows.map((o) => o.userId)).size,
      totalVolumeUsd: rows
        .reduce((sum, o) => sum.plus(o.volumeUsd.toFixed()), new Decimal(0))
        .toDecimalPlaces(2)
        .toNumber(),
      avgCompletionTimeSecs: timed.length === 0 ? 0 : secs.div(timed.length).toDecimalPlaces(2).toNumber(),
    };
  };
  const top = <K extends string>(key: (o: (typeof orders)[number]) => K) => {
    const groups = new Map<K, { count: number; volume: Decimal }>();
    for (const o of orders) {
      const g = groups.get(key(o)) ?? { count: 0, volume: new Decimal(0) };
      groups.set(key(o), { count: g.count + 1, volume: g.volume.plus(o.volumeUsd.toFixed()) });
    }
    return [...groups]
      .sort(([ka, a], [kb, b]) => b.count - a.count || b.volume.cmp(a.volume) || (ka < kb ? -1 : 1))
      .slice(0, 10)
      .map(([k, g]) => ({ key: k, orderCount: g.count, volumeUsd: g.volume.toDecimalPlaces(2).toNumber() }));
  };
  return {
    allTime: window(null),
    last24h: window(new Date(now.getTime() - 24 * HOUR)),
    last7d: window(new Date(now.getTime() - 7 * 24 * HOUR)),
    topChainPairs: top((o) => `${o.sourceChain}|${o.destChain}`).map(({ key, ...rest }) => {
      const [sourceChain, destChain] = key.split('|');
      return { sourceChain: sourceChain!, destChain: destChain!, ...rest };
    }),
    topAssets: top((o) => o.sourceAsset).map(({ key, ...rest }) => ({
      asset: key,
      symbol: registry.asset(key)!.symbol,
      ...rest,
    })),
  };
}

/** The keeper's fold: the deltas move into the rollups, and every figure stays what it was. */
async function foldKeepsAgreement(now: Date): Promise<void> {
  expect(await db.prisma.$queryRaw`SELECT count(*)::int AS n FROM stats_deltas`).not.toEqual([{ n: 0 }]);
  const unfolded = await expectAgreement(now);
  await db.prisma.$queryRaw`SELECT stats_fold()`;
  expect(await db.prisma.$queryRaw`SELECT count(*)::int AS n FROM stats_deltas`).toEqual([{ n: 0 }]);
  expect(await expectAgreement(now)).toEqual(unfolded);
}

async function expectAgreement(now: Date): Promise<Stats> {
  // List totals by status, from the same rollups, against a COUNT over the book.
  for (const status of ORDER_STATUSES) {
    expect(await countByStatus(db.prisma, [status], now), status).toBe(await db.prisma.order.count({ where: statusWhere(status, now) }));
  }
  expect(await countByStatus(db.prisma, ['expired', 'refunding', 'completed'], now)).toBe(
    await db.prisma.order.count({ where: { OR: (['expired', 'refunding', 'completed'] as const).map((s) => statusWhere(s, now)) } }),
  );
  expect(await countByStatus(db.prisma, 'all', now)).toBe(await db.prisma.order.count());
  const { computedAt, ...stats } = await computeStats(db.stats, registry, now);
  expect(computedAt).toEqual(now);
  expect(stats).toEqual(await oracle(now));
  return { computedAt, ...stats };
}

/**
 * Clocks that cut windows mid-hour, on the hour, and far enough ahead for deadlines to pass; and
 * clocks whose 24 h or 7 d window starts a second before, at, or a second after an order, so that
 * order sits in a window's partial first hour or just outside it.
 */
async function clocks(base: number): Promise<number[]> {
  const orders = await db.prisma.order.findMany({ select: { createdAt: true }, orderBy: { id: 'asc' }, take: 6 });
  const edges = orders.flatMap(({ createdAt }) =>
    [24 * HOUR, 7 * 24 * HOUR].flatMap((span) => [-1000, 0, 1000].map((d) => createdAt.getTime() + span + d)),
  );
  return [base, base - 90 * 60_000 - 17_000, Math.floor(base / HOUR) * HOUR, base + 2 * 24 * HOUR + 1234, base - 5 * 24 * HOUR, ...edges];
}

describe('statistics from rollups', () => {
  it('match a full read of the book at any clock, after creates and escrow events', async () => {
    const base = Date.now();
    const stats = await expectAgreement(new Date(base));
    // The seed puts orders in every bucket, so the comparison covers each of them.
    expect(stats.allTime.completedOrders).toBeGreaterThan(0);
    expect(stats.allTime.cancelledOrders).toBeGreaterThan(0);
    expect(stats.allTime.inProgressOrders).toBeGreaterThan(0);
    expect(stats.last24h.totalOrders).toBeGreaterThan(0);
    expect(stats.last24h.totalOrders).toBeLessThan(stats.last7d.totalOrders);
    for (const at of await clocks(base)) await expectAgreement(new Date(at));
  });

  it('follow multi-row updates and deletes, and ignore updates that change nothing counted', async () => {
    const before = await computeStats(db.stats, registry, new Date());
    await db.prisma.order.updateMany({ data: { updatedAt: new Date() } });
    const { computedAt: _a, ...unchanged } = await computeStats(db.stats, registry, before.computedAt);
    const { computedAt: _b, ...expected } = before;
    expect(unchanged).toEqual(expected);

    // One statement moving many orders across stages and users at once (an order's created_at never
    // changes: its month is its partition, test/partitions.test.ts).
    await db.prisma.$executeRaw`
      UPDATE orders SET stage = 'cancelled', user_id = 'moved-' || user_id
      WHERE id IN (SELECT id FROM orders WHERE stage = 'pending' ORDER BY id LIMIT 7)`;
    await db.prisma.$executeRaw`DELETE FROM orders WHERE id IN (SELECT id FROM orders ORDER BY created_at DESC LIMIT 5)`;
    // Read with these writes' deltas on top of folded rollups (users moved and deleted recounted), then folded.
    const now = Date.now();
    for (const at of await clocks(now)) await expectAgreement(new Date(at));
    await foldKeepsAgreement(new Date(now));
  });

  it('count pending orders before their deadline to the second, in whichever minute a deadline or window edge falls', async () => {
    // Deadlines moved ten days (and 17 s) out: the 24 h and 7 d windows then start mid-minute
    // while these orders are still live, and each deadline falls inside a minute.
    await db.prisma.$executeRaw`
      UPDATE orders SET deadline_at = created_at + interval '10 days 17 seconds'
      WHERE id IN (SELECT id FROM orders WHERE stage = 'pending' ORDER BY id LIMIT 6)`;
    const moved = await db.prisma.order.findMany({ where: { stage: 'pending' }, orderBy: { id: 'asc' }, take: 6 });
    const at = moved.flatMap((o) =>
      [o.deadlineAt.getTime(), o.createdAt.getTime() + 24 * HOUR, o.createdAt.getTime() + 7 * 24 * HOUR].flatMap((t) =>
        [-1000, 0, 1000].map((d) => t + d),
      ),
    );
    let windowEdgesSeen = 0;
    for (const t of at) {
      const now = new Date(t);
      const since = { all: null, d1: new Date(t - 24 * HOUR), d7: new Date(t - 7 * 24 * HOUR) };
      const live = await countLivePending(db.prisma, now, since);
      for (const [name, from] of Object.entries(since)) {
        const where = { stage: 'pending' as const, deadlineAt: { gt: now }, ...(from ? { createdAt: { gte: from } } : {}) };
        expect(live[name as keyof typeof since], `${name} at ${now.toISOString()}`).toBe(await db.prisma.order.count({ where }));
      }
      if (live.d1 > 0 && live.d1 < live.all) windowEdgesSeen++;
      await expectAgreement(now);
    }
    // Some clocks put a window's start between live orders, so its partial first minute counted.
    expect(windowEdgesSeen).toBeGreaterThan(0);
    await foldKeepsAgreement(new Date(at[0]!));
  });
});
