import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Plugin } from 'graphql-yoga';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { envelope } from '../rest/http.ts';
import { bearerToken } from './auth.ts';

export interface RateLimitOptions {
  /** Requests per minute for a caller with an API key (by key), and for anyone else (by IP). */
  perKeyPerMinute?: number;
  perIpPerMinute?: number;
  /** Take the client IP from X-Forwarded-For (only behind a proxy you run). */
  trustProxy: boolean;
  /** Shared counters across instances; in-process without it. */
  redis?: Redis;
}

/** Liveness and readiness probes are never limited: an orchestrator must always reach them. */
const EXEMPT = new Set(['/health', '/ready', '/relayer/health']);

function limiter(points: number, prefix: string, redis?: Redis): RateLimiterAbstract {
  const memory = new RateLimiterMemory({ points, duration: 60, keyPrefix: prefix });
  return redis
    ? // While Redis is away, each instance keeps counting on its own instead of failing requests.
      new RateLimiterRedis({ storeClient: redis, points, duration: 60, keyPrefix: `orderbook:rl:${prefix}`, insuranceLimiter: memory })
    : memory;
}

function clientIp(request: Request, serverContext: unknown, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = request.headers.get('x-forwarded-for')?.split(',')[0]?.trim();
    if (forwarded) return forwarded;
  }
  const req = (serverContext as { req?: IncomingMessage } | undefined)?.req;
  return req?.socket?.remoteAddress ?? 'unknown';
}

/**
 * Per-key and per-IP request budgets (rate-limiter-flexible), off unless configured. Every limited
 * response carries RateLimit-Limit/Remaining/Reset; a refusal is a 429 envelope with Retry-After.
 */
export function rateLimitPlugin(options: RateLimitOptions): Plugin | undefined {
  const byKey = options.perKeyPerMinute ? limiter(options.perKeyPerMinute, 'key', options.redis) : undefined;
  const byIp = options.perIpPerMinute ? limiter(options.perIpPerMinute, 'ip', options.redis) : undefined;
  if (!byKey && !byIp) return undefined;
  const headers = new WeakMap<Request, Record<string, string>>();

  return {
    async onRequest({ request, url, serverContext, endResponse }) {
      if (EXEMPT.has(url.pathname)) return;
      const token = bearerToken(request);
      // Keys are counted by a hash: the key itself never reaches Redis or a log.
      const [bucket, id, limit] =
        token && byKey
          ? [byKey, createHash('sha256').update(token).digest('hex').slice(0, 32), options.perKeyPerMinute!]
          : [byIp, clientIp(request, serverContext, options.trustProxy), options.perIpPerMinute];
      if (!bucket || !limit) return;
      try {
        const res = await bucket.consume(id);
        headers.set(request, rateHeaders(limit, res));
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        const retryAfter = String(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)));
        endResponse(
          envelope(429, `rate limit of ${limit} requests per minute reached; retry in ${retryAfter} s`, {
            ...rateHeaders(limit, rejection),
            'retry-after': retryAfter,
          }),
        );
      }
    },
    onResponse({ request, response }) {
      for (const [name, value] of Object.entries(headers.get(request) ?? {})) response.headers.set(name, value);
    },
  };
}

function rateHeaders(limit: number, res: RateLimiterRes): Record<string, string> {
  return {
    'ratelimit-limit': String(limit),
    'ratelimit-remaining': String(Math.max(0, res.remainingPoints)),
    'ratelimit-reset': String(Math.max(0, Math.ceil(res.msBeforeNext / 1000))),
  };
}
