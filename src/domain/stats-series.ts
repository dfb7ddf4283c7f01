import { Decimal } from 'decimal.js';
import type { Stage } from '../generated/prisma/client.ts';
import { BadRequestError } from './errors.ts';
import { intInRange, parseField } from './input.ts';
import { cents, type StatsStore } from './stats.ts';
import { stageBucket } from './status/rule.ts';

export const STATS_INTERVALS = ['hour', 'day'] as const;
export type StatsInterval = (typeof STATS_INTERVALS)[number];

/** How far back each interval reaches: a week of hours, a year of days. */
export const MAX_POINTS: Record<StatsInterval, number> = { hour: 168, day: 365 };

const INTERVAL_MS: Record<StatsInterval, number> = { hour: 3_600_000, day: 86_400_000 };

/** One bucket of the series: the orders created in [start, start + interval). */
export interface StatsPoint {
  start: Date;
  totalOrders: number;
  completedOrders: number;
  cancelledOrders: number;
  volumeUsd: number;
}

export interface SeriesRequest {
  interval: StatsInterval;
  last: number;
}

const LAST = { hour: intInRange(1, MAX_POINTS.hour), day: intInRange(1, MAX_POINTS.day) };

/** `interval` is hour or day (any letter case); `last` 1..168 hours or 1..365 days. */
export function parseSeriesRequest(
  input: { interval?: unknown; last?: unknown },
  names = { interval: 'interval', last: 'last' },
): SeriesRequest {
  const interval = typeof input.interval === 'string' ? input.interval.toLowerCase() : undefined;
  if (!(STATS_INTERVALS as readonly (string | undefined)[]).includes(interval)) {
    throw new BadRequestError(`${names.interval} must be one of ${STATS_INTERVALS.join(', ')}`);
  }
  const kind = interval as StatsInterval;
  if (input.last == null) throw new BadRequestError(`${names.last} is required (1 to ${MAX_POINTS[kind]} for ${kind})`);
  return { interval: kind, last: parseField(LAST[kind], input.last, names.last) };
}

/** Orders and volume of one stage in one bucket, as decimal text. */
export interface BucketSums {
  bucket: Date;
  stage: Stage;
  orders: string;
  volume: string;
}

/**
 * The series from the rollups, never reading the order book (src/db/stats-store.ts): the clock's part of
 * the status (pending orders past their deadline count as cancelled, as the all-time figures count them,
 * src/domain/stats.ts) comes from the live pending orders by bucket. Buckets are UTC hours or days; the
 * last one holds now. Every bucket is present, zeros where no order.
 */
export async function computeSeries(store: StatsStore, { interval, last }: SeriesRequest, now: Date): Promise<StatsPoint[]> {
  const step = INTERVAL_MS[interval];
  const current = Math.floor(now.getTime() / step) * step;
  const first = new Date(current - (last - 1) * step);
  const [sums, live] = await Promise.all([store.bucketSums(interval, first), store.livePendingByBucket(interval, first, now)]);

  const points = new Map<number, { total: Decimal; completed: Decimal; cancelled: Decimal; pending: Decimal; volume: Decimal }>();
  for (let i = 0; i < last; i++) {
    const zero = new Decimal(0);
    points.set(first.getTime() + i * step, { total: zero, completed: zero, cancelled: zero, pending: zero, volume: zero });
  }
  for (const row of sums) {
    const point = points.get(new Date(row.bucket).getTime());
    if (!point) continue;
    point.total = point.total.plus(row.orders);
    point.volume = point.volume.plus(row.volume);
    if (row.stage === 'pending') point.pending = point.pending.plus(row.orders);
    else if (stageBucket(row.stage, false) === 'completed') point.completed = point.completed.plus(row.orders);
    else if (stageBucket(row.stage, false) === 'cancelled') point.cancelled = point.cancelled.plus(row.orders);
  }
  const livePending = new Map(live.map((row) => [new Date(row.bucket).getTime(), new Decimal(row.orders)]));
  return [...points].map(([start, point]) => {
    const notExpired = livePending.get(start) ?? new Decimal(0);
    const expired = point.pending.minus(notExpired);
    const pendingBuckets = { live: stageBucket('pending', false), expired: stageBucket('pending', true) };
    const plus = (bucket: 'completed' | 'cancelled') =>
      (pendingBuckets.live === bucket ? notExpired : new Decimal(0)).plus(pendingBuckets.expired === bucket ? expired : 0);
    return {
      start: new Date(start),
      totalOrders: point.total.toNumber(),
      completedOrders: point.completed.plus(plus('completed')).toNumber(),
      cancelledOrders: point.cancelled.plus(plus('cancelled')).toNumber(),
      volumeUsd: cents(point.volume),
    };
  });
}
