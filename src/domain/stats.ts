import { Prisma, type PrismaClient } from '../generated/prisma/client.ts';
import type { Registry } from './registry/registry.ts';
import { bucketSql } from './status.ts';

/** Seed 2.5, with the seed's field names in camelCase. */
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
const DAY_MS = 86_400_000;

interface WindowRow {
  total: number;
  completed: number;
  cancelled: number;
  users: number;
  /** Decimal text, rounded to cents in SQL; turned into a number only at the end. */
  volume: string;
  avg_secs: string | null;
}

/**
 * Every figure comes from SQL in NUMERIC, so sums are exact; USD values become JSON numbers only
 * after rounding to cents. The three windows are computed in one pass over `orders`.
 */
export async function computeStats(prisma: PrismaClient, registry: Registry, now: Date): Promise<Stats> {
  const buckets = bucketSql(now);
  const windows = {
    all: Prisma.sql`TRUE`,
    d1: Prisma.sql`created_at >= ${new Date(now.getTime() - DAY_MS)}`,
    d7: Prisma.sql`created_at >= ${new Date(now.getTime() - 7 * DAY_MS)}`,
  };
  // Each window's figures as FILTERed aggregates over the same rows: one pass for all three.
  const columns = Object.entries(windows).map(
    ([w, inWindow]) => Prisma.sql`
      count(*) FILTER (WHERE ${inWindow})::int AS ${Prisma.raw(`${w}_total`)},
      count(*) FILTER (WHERE ${inWindow} AND ${buckets.completed})::int AS ${Prisma.raw(`${w}_completed`)},
      count(*) FILTER (WHERE ${inWindow} AND ${buckets.cancelled})::int AS ${Prisma.raw(`${w}_cancelled`)},
      count(DISTINCT user_id) FILTER (WHERE ${inWindow})::int AS ${Prisma.raw(`${w}_users`)},
      round(coalesce(sum(volume_usd) FILTER (WHERE ${inWindow}), 0), 2)::text AS ${Prisma.raw(`${w}_volume`)},
      round(avg(extract(epoch FROM completed_at - created_at))
            FILTER (WHERE ${inWindow} AND ${buckets.completed} AND completed_at IS NOT NULL), 2)::text
        AS ${Prisma.raw(`${w}_avg_secs`)}`,
  );
  const [row] = await prisma.$queryRaw<Record<string, number | string | null>[]>`
    SELECT ${Prisma.join(columns)} FROM orders`;
  const pick = (w: keyof typeof windows): WindowRow => ({
    total: row![`${w}_total`] as number,
    completed: row![`${w}_completed`] as number,
    cancelled: row![`${w}_cancelled`] as number,
    users: row![`${w}_users`] as number,
    volume: row![`${w}_volume`] as string,
    avg_secs: row![`${w}_avg_secs`] as string | null,
  });
  const [allTime, last24h, last7d] = (['all', 'd1', 'd7'] as const).map((w) => toWindow(pick(w)));

  const [pairs, assets] = await Promise.all([
    prisma.$queryRaw<{ source_chain: string; dest_chain: string; order_count: number; volume: string }[]>`
      SELECT source_chain, dest_chain, count(*)::int AS order_count, round(sum(volume_usd), 2)::text AS volume
      FROM orders GROUP BY source_chain, dest_chain
      ORDER BY order_count DESC, sum(volume_usd) DESC, source_chain, dest_chain LIMIT ${TOP_N}`,
    prisma.$queryRaw<{ asset: string; order_count: number; volume: string }[]>`
      SELECT source_asset AS asset, count(*)::int AS order_count, round(sum(volume_usd), 2)::text AS volume
      FROM orders GROUP BY source_asset
      ORDER BY order_count DESC, sum(volume_usd) DESC, source_asset LIMIT ${TOP_N}`,
  ]);

  return {
    allTime: allTime!,
    last24h: last24h!,
    last7d: last7d!,
    topChainPairs: pairs.map((p) => ({
      sourceChain: p.source_chain,
      destChain: p.dest_chain,
      orderCount: p.order_count,
      volumeUsd: Number(p.volume),
    })),
    topAssets: assets.map((a) => ({
      asset: a.asset,
      symbol: registry.asset(a.asset)?.symbol ?? a.asset,
      orderCount: a.order_count,
      volumeUsd: Number(a.volume),
    })),
    computedAt: now,
  };
}

function toWindow(row: WindowRow | undefined): StatsWindow {
  if (!row) throw new Error('stats query returned no row');
  return {
    totalOrders: row.total,
    completedOrders: row.completed,
    inProgressOrders: row.total - row.completed - row.cancelled,
    cancelledOrders: row.cancelled,
    uniqueUsers: row.users,
    // Cents-rounded decimal text to number: the only float conversion, at the very end.
    totalVolumeUsd: Number(row.volume),
    avgCompletionTimeSecs: row.avg_secs === null ? 0 : Number(row.avg_secs),
  };
}
