import { Decimal } from 'decimal.js';
import { Prisma, type PrismaClient, type Stage } from '../generated/prisma/client.ts';
import { countLivePending } from './status/live-pending.ts';
import type { Registry } from './registry/registry.ts';
import { stageBucket, type StatusBucket } from './status/rule.ts';

/** GET /stats, with the REST field names in camelCase. */
export interface StatsWindow {
  totalOrders: number;
  completedOrders: number;
  inProgressOrders: number;
  cancelledOrders: number;
  uniqueUsers: number;
  totalVolumeUsd: number;
  avgCompletionTimeSecs: number;
}

export interface ChainPairStat {
  sourceChain: string;
  destChain: string;
  orderCount: number;
  volumeUsd: number;
}

export interface AssetStat {
  asset: string;
  symbol: string;
  orderCount: number;
  volumeUsd: number;
}

export interface Stats {
  allTime: StatsWindow;
  last24h: StatsWindow;
  last7d: StatsWindow;
  topChainPairs: ChainPairStat[];
  topAssets: AssetStat[];
  /** When these figures were computed. */
  computedAt: Date;
}

const TOP_N = 10;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

type WindowName = 'all' | 'd1' | 'd7';

/** Sums for one window and stage, as decimal text (exact NUMERIC and BIGINT from SQL). */
interface StageSums {
  w: WindowName;
  stage: Stage;
  orders: string;
  volume: string;
  timed: string;
  secs: string;
}

/**
 * Every figure is exact until the very end: counts and sums come from SQL as decimal text and are
 * added with decimal.js; USD values become JSON numbers only after rounding to cents.
 *
 * Nothing here scans the order book. The rollup tables (stats_hourly, stats_pairs, stats_assets,
 * stats_users) are kept current by triggers on `orders`, so the cost does not grow with its size:
 * - all-time figures sum the hourly rollup; a window sums its whole hours from the rollup and reads
 *   the orders of its first, partial hour directly (an index range of at most one hour);
 * - the clock's part of the status (`pending` orders past their deadline are `expired`) comes from
 *   the stats_pending rollup, by deadline minute (src/domain/status/live-pending.ts);
 * - a user is in a window exactly when their latest order is (stats_users.last_order_at, indexed).
 */
export async function computeStats(prisma: PrismaClient, registry: Registry, now: Date): Promise<Stats> {
  const since = { d1: new Date(now.getTime() - DAY_MS), d7: new Date(now.getTime() - 7 * DAY_MS) };
  // The first whole hour of each window: the hour before it is partial and read from `orders`.
  const wholeFrom = {
    d1: new Date(Math.ceil(since.d1.getTime() / HOUR_MS) * HOUR_MS),
    d7: new Date(Math.ceil(since.d7.getTime() / HOUR_MS) * HOUR_MS),
  };
  const rollup = (w: WindowName, where: Prisma.Sql) => Prisma.sql`
    SELECT ${w} AS w, stage::text AS stage, sum(orders)::text AS orders, sum(volume_usd)::text AS volume,
           sum(timed_orders)::text AS timed, sum(completion_secs)::text AS secs
    FROM stats_hourly WHERE ${where} GROUP BY stage`;
  const edge = (w: 'd1' | 'd7') => Prisma.sql`
    SELECT ${w} AS w, stage::text AS stage, count(*)::text AS orders, sum(volume_usd)::text AS volume,
           count(completed_at)::text AS timed, sum(stats_completion_secs(created_at, completed_at))::text AS secs
    FROM orders WHERE created_at >= ${since[w]} AND created_at < ${wholeFrom[w]} GROUP BY stage`;

  const [sums, [users], live, pairs, assets] = await Promise.all([
    prisma.$queryRaw<StageSums[]>`
      ${rollup('all', Prisma.sql`TRUE`)}
      UNION ALL ${rollup('d1', Prisma.sql`hour >= ${wholeFrom.d1}`)}
      UNION ALL ${rollup('d7', Prisma.sql`hour >= ${wholeFrom.d7}`)}
      UNION ALL ${edge('d1')}
      UNION ALL ${edge('d7')}`,
    // Users in each window in one pass (a user is in a window when their latest order is).
    prisma.$queryRaw<Record<`${WindowName}_users`, number>[]>`
      SELECT count(*)::int AS all_users,
             (count(*) FILTER (WHERE last_order_at >= ${since.d1}))::int AS d1_users,
             (count(*) FILTER (WHERE last_order_at >= ${since.d7}))::int AS d7_users
      FROM stats_users`,
    countLivePending(prisma, now, { all: null, d1: since.d1, d7: since.d7 }),
    prisma.$queryRaw<{ source_chain: string; dest_chain: string; orders: string; volume: string }[]>`
      SELECT source_chain, dest_chain, orders::text, volume_usd::text AS volume FROM stats_pairs WHERE orders > 0
      ORDER BY stats_pairs.orders DESC, volume_usd DESC, source_chain, dest_chain LIMIT ${TOP_N}`,
    prisma.$queryRaw<{ asset: string; orders: string; volume: string }[]>`
      SELECT asset, orders::text, volume_usd::text AS volume FROM stats_assets WHERE orders > 0
      ORDER BY stats_assets.orders DESC, volume_usd DESC, asset LIMIT ${TOP_N}`,
  ]);
  if (!users) throw new Error('stats query returned no row');

  const window = (w: WindowName): StatsWindow => {
    const rows = sums.filter((row) => row.w === w);
    const sum = (pick: (row: StageSums) => string, stages: (stage: Stage) => boolean = () => true) =>
      rows.filter((row) => stages(row.stage)).reduce((total, row) => total.plus(pick(row)), new Decimal(0));
    const count = (stages?: (stage: Stage) => boolean) => sum((row) => row.orders, stages).toNumber();
    // Pending orders are the one stage the clock splits between buckets.
    const pendingLive = live[w];
    const expired = count((stage) => stage === 'pending') - pendingLive;
    const inBucket = (bucket: StatusBucket) =>
      count((stage) => stage !== 'pending' && stageBucket(stage, false) === bucket) +
      (stageBucket('pending', false) === bucket ? pendingLive : 0) +
      (stageBucket('pending', true) === bucket ? expired : 0);
    const completed = (stage: Stage) => stage !== 'pending' && stageBucket(stage, false) === 'completed';
    const timed = sum((row) => row.timed, completed);
    return {
      totalOrders: count(),
      completedOrders: inBucket('completed'),
      inProgressOrders: inBucket('in_progress'),
      cancelledOrders: inBucket('cancelled'),
      uniqueUsers: users[`${w}_users`],
      totalVolumeUsd: cents(sum((row) => row.volume)),
      avgCompletionTimeSecs: timed.isZero() ? 0 : cents(sum((row) => row.secs, completed).div(timed)),
    };
  };

  return {
    allTime: window('all'),
    last24h: window('d1'),
    last7d: window('d7'),
    topChainPairs: pairs.map((p) => ({
      sourceChain: p.source_chain,
      destChain: p.dest_chain,
      orderCount: Number(p.orders),
      volumeUsd: cents(new Decimal(p.volume)),
    })),
    topAssets: assets.map((a) => ({
      asset: a.asset,
      symbol: registry.asset(a.asset)?.symbol ?? a.asset,
      orderCount: Number(a.orders),
      volumeUsd: cents(new Decimal(a.volume)),
    })),
    computedAt: now,
  };
}

/** Exact decimal to a JSON number of dollars and cents: the only float conversion, at the very end. */
export function cents(value: Decimal): number {
  return value.toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toNumber();
}
