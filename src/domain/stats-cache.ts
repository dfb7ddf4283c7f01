import type { Redis } from 'ioredis';
import type { Stats } from './stats.ts';

/**
 * The statistics cache (two minutes by default, server side). With Redis every instance shares one
 * entry; without it each process keeps its own. Concurrent misses in one process share one
 * computation, so a cold cache under load runs the aggregate once per instance, not once per request.
 */
export interface CachedStats {
  stats: Stats;
  /** Seconds until this entry expires, for Cache-Control: max-age. */
  remainingSecs: number;
}

export interface StatsCache {
  get(compute: () => Promise<Stats>): Promise<CachedStats>;
  clear(): Promise<void>;
}

export function memoryStatsCache(ttlSecs: number, now: () => number = Date.now): StatsCache {
  let entry: { stats: Stats; expiresAt: number } | undefined;
  let inflight: Promise<Stats> | undefined;
  return {
    async get(compute) {
      if (entry && entry.expiresAt > now()) return { stats: entry.stats, remainingSecs: remaining(entry.expiresAt, now()) };
      inflight ??= compute().finally(() => (inflight = undefined));
      const stats = await inflight;
      if (!entry || entry.expiresAt <= now()) entry = { stats, expiresAt: now() + ttlSecs * 1000 };
      return { stats: entry.stats, remainingSecs: remaining(entry.expiresAt, now()) };
    },
    async clear() {
      entry = undefined;
    },
  };
}

const REDIS_KEY = 'orderbook:stats:v1';

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
export function redisStatsCache(redis: Redis, ttlSecs: number, options: RedisStatsCacheOptions): StatsCache {
  let inflight: Promise<CachedStats> | undefined;
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
  return {
    get(compute) {
      inflight ??= load(compute).finally(() => (inflight = undefined));
      return inflight;
    },
    async clear() {
      await options.fallback.clear();
      await redis.del(REDIS_KEY).catch(redisError);
    },
  };
}

function reviveStats(json: string): Stats {
  const stats = JSON.parse(json) as Stats & { computedAt: string };
  return { ...stats, computedAt: new Date(stats.computedAt) };
}

function remaining(expiresAt: number, now: number): number {
  return Math.max(0, Math.ceil((expiresAt - now) / 1000));
}
