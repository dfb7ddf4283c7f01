import { Decimal } from 'decimal.js';
import type { Stage } from '../generated/prisma/client.ts';
import type { BucketSums, StatsInterval } from './stats-series.ts';
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
const DAY_MS = 86_400_000;

export type WindowName = 'all' | 'd1' | 'd7';

/** Sums for one window and stage, as decimal text (exact NUMERIC and BIGINT from SQL). */
export interface StageSums {
  w: WindowName;
  stage: Stage;
  orders: string;
  volume: string;
  timed: string;
  secs: string;
}

/** A source -> destination pair or a source asset, with its orders and USD volume as decimal text. */
export interface RolledUp {
  orders: string;
  volume: string;
}

/**
 * The rollups statistics are read from (src/db/stats-store.ts implements it). The windows are the
 * orders created at or after `since` (d1, d7) and all of them.
 */
export interface StatsStore {
  /** Per window and stage: orders, volume, timed orders and their completion seconds. */
  stageSums(since: Record<'d1' | 'd7', Date>): Promise<StageSums[]>;
  /** Distinct users per window. */
  users(since: Record<'d1' | 'd7', Date>): Promise<Record<`${WindowName}_users`, number>>;
  /** Pending orders the clock has not made `expired` yet, per window (src/domain/status/live-pending.ts). */
  livePending(now: Date, since: Record<'d1' | 'd7', Date>): Promise<Record<WindowName, number>>;
  /** The chain pairs with the most orders (then volume), most first. */
  topChainPairs(limit: number): Promise<(RolledUp & { sourceChain: string; destChain: string })[]>;
  /** The source assets with the most orders (then volume), most first. */
  topAssets(limit: number): Promise<(RolledUp & { asset: string })[]>;
  /** Per bucket (UTC hours or days) from `first` and stage: orders and volume (stats-series.ts). */
  bucketSums(interval: StatsInterval, first: Date): Promise<BucketSums[]>;
  /** Pending orders the clock has not made `expired` yet, by the bucket of their creation, from `first`. */
  livePendingByBucket(interval: StatsInterval, first: Date, now: Date): Promise<{ bucket: Date; orders: string }[]>;
}

/**
 * Every figure is exact until the very end: counts and sums come from SQL as decimal text and are
 * added with decimal.js; USD values become JSON numbers only after rounding to cents. Nothing scans
 * the order book: the figures come from rollups (src/db/stats-store.ts).
 */
export async function computeStats(store: StatsStore, registry: Registry, now: Date): Promise<Stats> {
  const since = { d1: new Date(now.getTime() - DAY_MS), d7: new Date(now.getTime() - 7 * DAY_MS) };
  const [sums, users, live, pairs, assets] = await Promise.all([
    store.stageSums(since),
    store.users(since),
    store.livePending(now, since),
    store.topChainPairs(TOP_N),
    store.topAssets(TOP_N),
  ]);

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
      sourceChain: p.sourceChain,
      destChain: p.destChain,
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
