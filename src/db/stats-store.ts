import { Prisma, type PrismaClient } from '../generated/prisma/client.ts';
import type { StageSums, StatsStore, WindowName } from '../domain/stats.ts';
import type { BucketSums, StatsInterval } from '../domain/stats-series.ts';
import { countLivePending } from '../domain/status/live-pending.ts';
import type { RequestReads } from './replicas/routing.ts';

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

/** date_bin of `column` into UTC hours or days. */
const bin = (interval: StatsInterval, column: Prisma.Sql) =>
  Prisma.sql`date_bin(${Prisma.raw(`'1 ${interval}'`)}::interval, ${column}, TIMESTAMPTZ '2000-01-01 00:00:00+00')`;

/**
 * The statistics' reads. Nothing here scans the order book. The rollup tables (stats_hourly,
 * stats_pairs, stats_assets, stats_users, stats_pending) are read through their stats_*_live views:
 * the rollups as the stats keeper last folded them plus the deltas the triggers on `orders` appended
 * since (prisma/sql/stats-triggers.sql), so every figure is exact and the cost does not grow with the book:
 * - all-time figures sum the hourly rollup; a window sums its whole hours from the rollup and reads
 *   the orders of its first, partial hour directly (an index range of at most one hour);
 * - the clock's part of the status (`pending` orders past their deadline are `expired`) comes from
 *   the stats_pending rollup, by deadline minute (src/domain/status/live-pending.ts);
 * - a user is in a window exactly when their latest order is (last_order_at of stats_users_live).
 */
export function createStatsStore(prisma: PrismaClient): StatsStore {
  return {
    stageSums(since) {
      // The first whole hour of each window: the hour before it is partial and read from `orders`.
      const wholeFrom = {
        d1: new Date(Math.ceil(since.d1.getTime() / HOUR_MS) * HOUR_MS),
        d7: new Date(Math.ceil(since.d7.getTime() / HOUR_MS) * HOUR_MS),
      };
      const rollup = (w: WindowName, where: Prisma.Sql) => Prisma.sql`
        SELECT ${w} AS w, stage::text AS stage, sum(orders)::text AS orders, sum(volume_usd)::text AS volume,
               sum(timed_orders)::text AS timed, sum(completion_secs)::text AS secs
        FROM stats_hourly_live WHERE ${where} GROUP BY stage`;
      const edge = (w: 'd1' | 'd7') => Prisma.sql`
        SELECT ${w} AS w, stage::text AS stage, count(*)::text AS orders, sum(volume_usd)::text AS volume,
               count(completed_at)::text AS timed, sum(stats_completion_secs(created_at, completed_at))::text AS secs
        FROM orders WHERE created_at >= ${since[w]} AND created_at < ${wholeFrom[w]} GROUP BY stage`;
      return prisma.$queryRaw<StageSums[]>`
        ${rollup('all', Prisma.sql`TRUE`)}
        UNION ALL ${rollup('d1', Prisma.sql`hour >= ${wholeFrom.d1}`)}
        UNION ALL ${rollup('d7', Prisma.sql`hour >= ${wholeFrom.d7}`)}
        UNION ALL ${edge('d1')}
        UNION ALL ${edge('d7')}`;
    },

    async users(since) {
      // Users in each window in one pass (a user is in a window when their latest order is).
      const [users] = await prisma.$queryRaw<Record<`${WindowName}_users`, number>[]>`
        SELECT count(*)::int AS all_users,
               (count(*) FILTER (WHERE last_order_at >= ${since.d1}))::int AS d1_users,
               (count(*) FILTER (WHERE last_order_at >= ${since.d7}))::int AS d7_users
        FROM stats_users_live`;
      if (!users) throw new Error('stats query returned no row');
      return users;
    },

    livePending: (now, since) => countLivePending(prisma, now, { all: null, d1: since.d1, d7: since.d7 }),

    async topChainPairs(limit) {
      const pairs = await prisma.$queryRaw<{ source_chain: string; dest_chain: string; orders: string; volume: string }[]>`
        SELECT source_chain, dest_chain, orders::text, volume_usd::text AS volume FROM stats_pairs_live WHERE orders > 0
        ORDER BY stats_pairs_live.orders DESC, volume_usd DESC, source_chain, dest_chain LIMIT ${limit}`;
      return pairs.map((p) => ({ sourceChain: p.source_chain, destChain: p.dest_chain, orders: p.orders, volume: p.volume }));
    },

    topAssets: (limit) =>
      prisma.$queryRaw<{ asset: string; orders: string; volume: string }[]>`
        SELECT asset, orders::text, volume_usd::text AS volume FROM stats_assets_live WHERE orders > 0
        ORDER BY stats_assets_live.orders DESC, volume_usd DESC, asset LIMIT ${limit}`,

    // A day is its 24 hours of stats_hourly.
    bucketSums: (interval, first) =>
      prisma.$queryRaw<BucketSums[]>`
        SELECT ${bin(interval, Prisma.sql`hour`)} AS bucket, stage::text AS stage, sum(orders)::text AS orders, sum(volume_usd)::text AS volume
        FROM stats_hourly_live WHERE hour >= ${first} GROUP BY 1, 2`,

    livePendingByBucket(interval, first, now) {
      // From stats_pending by deadline minute, with only the minute now is in read from `orders` (an index range).
      const liveFrom = new Date(Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS + MINUTE_MS);
      return prisma.$queryRaw<{ bucket: Date; orders: string }[]>`
        SELECT bucket, sum(orders)::text AS orders FROM (
          SELECT ${bin(interval, Prisma.sql`created_minute`)} AS bucket, orders FROM stats_pending_live
          WHERE deadline_minute >= ${liveFrom} AND created_minute >= ${first}
          UNION ALL
          SELECT ${bin(interval, Prisma.sql`created_at`)}, 1 FROM orders
          WHERE stage = 'pending' AND deadline_at > ${now} AND deadline_at < ${liveFrom} AND created_at >= ${first}
        ) AS live GROUP BY 1`;
    },
  };
}

/** Statistics tolerate lag (they are cached for minutes anyway): read where the request's lag-tolerant reads go. */
export function routedStatsStore(reads: RequestReads): StatsStore {
  const on = async () => (await reads.lagTolerant()).stats;
  return {
    stageSums: async (since) => (await on()).stageSums(since),
    users: async (since) => (await on()).users(since),
    livePending: async (now, since) => (await on()).livePending(now, since),
    topChainPairs: async (limit) => (await on()).topChainPairs(limit),
    topAssets: async (limit) => (await on()).topAssets(limit),
    bucketSums: async (interval, first) => (await on()).bucketSums(interval, first),
    livePendingByBucket: async (interval, first, now) => (await on()).livePendingByBucket(interval, first, now),
  };
}
