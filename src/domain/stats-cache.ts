import type { Redis } from 'ioredis';
import type { Stats } from './stats.ts';
import type { StatsPoint } from './stats-series.ts';

/**
 * The statistics cache (two minutes by default, server side). With Redis every instance shares one
 * entry; without it each process keeps its own. Concurrent misses in one process share one
 * computation, so a cold cache under load runs the aggregate once per instance, not once per request.
 * The stats series (src/domain/stats-series.ts) is cached the same way, one entry per interval and length.
 */
export interface CachedStats {
  stats: Stats;
  /** Seconds until this entry expires, for Cache-Control: max-age. */
  remainingSecs: number;
}

export interface CachedSeries {
  points: StatsPoint[];
  remainingSecs: number;
}

export interface StatsCache {
  get(compute: () => Promise<Stats>): Promise<CachedStats>;
  /** `key` names the series (interval and length); each has its own entry and expiry. */
  series(key: string, compute: () => Promise<StatsPoint[]>): Promise<CachedSeries>;
  clear(): Promise<void>;
}

interface Entry {
  value: unknown;
  expiresAt: number;
}

export function memoryStatsCache(ttlSecs: number, now: () => number = Date.now): StatsCache {
  // At most one entry per series length and interval (a few hundred), so the map stays small.
  const entries = new Map<string, Entry>();
  const inflight = new Map<string, Promise<unknown>>();
  async function get<T>(key: string, compute: () => Promise<T>): Promise<{ value: T; remainingSecs: number }> {
    let entry = entries.get(key);
    if (!entry || entry.expiresAt <= now()) {
      let running = inflight.get(key) as Promise<T> | undefined;
      if (!running) {
        running = compute().finally(() => inflight.delete(key));
        inflight.set(key, running);
      }
      const value = await running;
      entry = entries.get(key);
      if (!entry || entry.expiresAt <= now()) {
        entry = { value, expiresAt: now() + ttlSecs * 1000 };
        entries.set(key, entry);
      }
    }
    return { value: entry.value as T, remainingSecs: remaining(entry.expiresAt, now()) };
  }
  return {
    async get(compute) {
      const { value, remainingSecs } = await get(STATS_KEY, compute);
      return { stats: value, remainingSecs };
    },
    async series(key, compute) {
      const { value, remainingSecs } = await get(`series:${key}`, compute);
      return { points: value, remainingSecs };
    },
    async clear() {
      entries.clear();
    },
  };
}

const STATS_KEY = 'stats';
const REDIS_KEY = 'orderbook:stats:v1';
/** One hash for every series: each field holds its own expiry, and clear() is one DEL. */
const REDIS_SERIES_KEY = 'orderbook:stats:v1:series';

export interface RedisStatsCacheOptions {
  /** Serves while Redis is away, so /stats is computed (or cached per instance) instead of failing. */
  fallback: StatsCache;
  /** Told each time Redis failed a read or a write of the cache. */
  onRedisError?: (error: Error) => void;
}

/**
 * One entry shared by every instance through Redis. Redis is optional: when a read fails the answer
 * comes from the in-process fallback, and a failed write only costs the other instances a miss.
 */
export function redisStatsCache(redis: Redis, ttlSecs: number, options: RedisStatsCacheOptions, now: () => number = Date.now): StatsCache {
  let inflight: Promise<CachedStats> | undefined;
  const inflightSeries = new Map<string, Promise<CachedSeries>>();
  const redisError = (error: unknown) => options.onRedisError?.(error instanceof Error ? error : new Error(String(error)));
  const load = async (compute: () => Promise<Stats>): Promise<CachedStats> => {
    let cached: string | null;
    let pttl: number;
    try {
      [[, cached], [, pttl]] = (await redis.multi().get(REDIS_KEY).pttl(REDIS_KEY).exec()) as [
        [Error | null, string | null],
        [Error | null, number],
      ];
    } catch (error) {
      redisError(error);
      return options.fallback.get(compute);
    }
    if (cached && pttl > 0) return { stats: reviveStats(cached), remainingSecs: Math.ceil(pttl / 1000) };
    const stats = await compute();
    // NX: when two instances miss together, the first write wins and both serve its expiry.
    await redis.set(REDIS_KEY, JSON.stringify(stats), 'PX', ttlSecs * 1000, 'NX').catch(redisError);
    return { stats, remainingSecs: ttlSecs };
  };
  const loadSeries = async (key: string, compute: () => Promise<StatsPoint[]>): Promise<CachedSeries> => {
    let cached: string | null;
    try {
      cached = await redis.hget(REDIS_SERIES_KEY, key);
    } catch (error) {
      redisError(error);
      return options.fallback.series(key, compute);
    }
    const entry = cached ? reviveSeries(cached) : undefined;
    if (entry && entry.expiresAt > now()) return { points: entry.points, remainingSecs: remaining(entry.expiresAt, now()) };
    const points = await compute();
    const expiresAt = now() + ttlSecs * 1000;
    // The hash outlives its newest field by nothing: idle, it expires as a whole.
    await redis
      .multi()
      .hset(REDIS_SERIES_KEY, key, JSON.stringify({ expiresAt, points }))
      .pexpire(REDIS_SERIES_KEY, ttlSecs * 1000)
      .exec()
      .catch(redisError);
    return { points, remainingSecs: ttlSecs };
  };
  return {
    get(compute) {
      inflight ??= load(compute).finally(() => (inflight = undefined));
      return inflight;
    },
    series(key, compute) {
      let running = inflightSeries.get(key);
      if (!running) {
        running = loadSeries(key, compute).finally(() => inflightSeries.delete(key));
        inflightSeries.set(key, running);
      }
      return running;
    },
    async clear() {
      await options.fallback.clear();
      await redis.del(REDIS_KEY, REDIS_SERIES_KEY).catch(redisError);
    },
  };
}

function reviveStats(json: string): Stats {
  const stats = JSON.parse(json) as Stats & { computedAt: string };
  return { ...stats, computedAt: new Date(stats.computedAt) };
}

function reviveSeries(json: string): { expiresAt: number; points: StatsPoint[] } {
  const entry = JSON.parse(json) as { expiresAt: number; points: (StatsPoint & { start: string })[] };
  return { expiresAt: entry.expiresAt, points: entry.points.map((point) => ({ ...point, start: new Date(point.start) })) };
}

function remaining(expiresAt: number, now: number): number {
  return Math.max(0, Math.ceil((expiresAt - now) / 1000));
}
