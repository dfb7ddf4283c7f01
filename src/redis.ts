import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';

/**
 * Redis is optional (README, Hardening): it shares the stats cache, the rate-limit counters and the
 * subscription fan-out between instances. While it is away each instance carries on alone, so no
 * caller may await a Redis command without a fallback, and every client has an error listener
 * (an 'error' event without one ends the process).
 */
export interface RedisLink {
  /** Commands: cache, rate limits, PUBLISH. Fails fast while disconnected (no offline queue). */
  client: Redis;
  /** SUBSCRIBE only: a connection in subscriber mode can send nothing else. */
  subscriber: Redis;
}

/**
 * Options for a connection that only subscribes (subscription fan-out). Without the ready check:
 * ioredis 5.8+ can send its ready-check INFO after a SUBSCRIBE issued while connecting; Redis refuses
 * it in subscriber mode, and ioredis then errors and reconnects, dropping the channel for a moment
 * (ioredis issue #2037). A subscriber sends no other command, so the check has nothing to guard.
 * No retry limit: a SUBSCRIBE issued while Redis is away waits for the reconnection instead of failing.
 */
export const SUBSCRIBER_OPTIONS = { enableReadyCheck: false, maxRetriesPerRequest: null } as const satisfies RedisOptions;

/**
 * Options for the command connection: a command fails at once while Redis is disconnected, and after
 * a second when it is connected but not answering, so a request never waits on Redis for longer.
 */
export const CLIENT_OPTIONS = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  commandTimeout: 1_000,
} as const satisfies RedisOptions;

export function connectRedis(url: string, keyPrefix: string, logger: Logger): RedisLink {
  const client = new Redis(url, { keyPrefix, ...CLIENT_OPTIONS });
  const subscriber = new Redis(url, { keyPrefix, ...SUBSCRIBER_OPTIONS });
  for (const [role, connection] of [
    ['client', client],
    ['subscriber', subscriber],
  ] as const) {
    const warn = throttledWarn(logger, `redis ${role} error`);
    connection.on('error', (err: Error) => warn(err.message));
    connection.on('ready', () => logger.info({ role }, 'redis connected'));
  }
  return { client, subscriber };
}

/**
 * A warning logged at most once per interval, with the count of occurrences folded into it: an
 * outage under load would otherwise write one line per request.
 */
export function throttledWarn(logger: Logger, msg: string, intervalMs = 5_000): (error: string) => void {
  let last = 0;
  let suppressed = 0;
  return (error) => {
    const now = Date.now();
    if (now - last < intervalMs) {
      suppressed++;
      return;
    }
    logger.warn({ err: error, suppressed }, msg);
    last = now;
    suppressed = 0;
  };
}
