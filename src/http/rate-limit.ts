import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import {
  type DocumentNode,
  type FragmentDefinitionNode,
  GraphQLError,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { ErrorCode } from '../domain/errors.ts';
import { envelope } from './envelope.ts';
import { bearerToken } from './auth.ts';

export interface RateLimitOptions {
  /** Requests per minute for a caller with a verified key (by key), and for anyone else (by IP). */
  perKeyPerMinute?: number;
  perIpPerMinute?: number;
  /** Only a key this accepts gets a budget of its own; any other token counts against the IP. */
  isVerifiedKey: (token: string) => boolean;
  /** Shared counters across instances; in-process without it. */
  redis?: Redis;
}

/** Who spends: the bearer token presented (verified or not) and the client IP. */
export interface Caller {
  token: string | undefined;
  ip: string;
}

export type RateDecision =
  | { allowed: true; headers: Record<string, string> }
  | { allowed: false; headers: Record<string, string>; message: string };

/**
 * One budget per caller, spent by every transport: an HTTP request and a WebSocket operation cost one each,
 * and a mutation's every top-level field beyond the first one more.
 */
export interface RateLimiter {
  consume(caller: Caller, points?: number): Promise<RateDecision>;
}

function bucket(points: number, prefix: string, redis?: Redis): RateLimiterAbstract {
  const memory = new RateLimiterMemory({ points, duration: 60, keyPrefix: prefix });
  return redis
    ? // While Redis is away, each instance keeps counting on its own instead of failing requests.
      new RateLimiterRedis({ storeClient: redis, points, duration: 60, keyPrefix: `orderbook:rl:${prefix}`, insuranceLimiter: memory })
    : memory;
}

/**
 * Per-key and per-IP budgets (rate-limiter-flexible), off unless configured. A key is trusted only
 * once verified: an unknown token would otherwise buy a fresh budget per request, so it counts
 * against its IP and no counter is ever created for it.
 */
export function createRateLimiter(options: RateLimitOptions): RateLimiter | undefined {
  const byKey = options.perKeyPerMinute ? bucket(options.perKeyPerMinute, 'key', options.redis) : undefined;
  const byIp = options.perIpPerMinute ? bucket(options.perIpPerMinute, 'ip', options.redis) : undefined;
  if (!byKey && !byIp) return undefined;

  return {
    async consume({ token, ip }, points = 1) {
      const verified = byKey && token !== undefined && options.isVerifiedKey(token);
      // Keys are counted by a hash: the key itself never reaches Redis or a log.
      const [limiter, id, limit] = verified
        ? [byKey, createHash('sha256').update(token).digest('hex').slice(0, 32), options.perKeyPerMinute!]
        : [byIp, ip, options.perIpPerMinute];
      if (!limiter || !limit) return { allowed: true, headers: {} };
      try {
        return { allowed: true, headers: rateHeaders(limit, await limiter.consume(id, points)) };
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        const retryAfter = String(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)));
        return {
          allowed: false,
          headers: { ...rateHeaders(limit, rejection), 'retry-after': retryAfter },
          message: `rate limit of ${limit} requests per minute reached; retry in ${retryAfter} s`,
        };
      }
    },
  };
}

/**
 * The client's IP. Behind a trusted proxy it is the last X-Forwarded-For hop: the one that proxy appended
 * for the peer it saw. The hops before it are whatever the client sent, so taking the first would let
 * anyone pick the IP it is limited as. Read from the end, so a long header costs no more than a short one.
 */
export function clientIp(forwardedFor: string | null | undefined, remoteAddress: string | undefined, trustProxy: boolean): string {
  if (trustProxy && forwardedFor) {
    const forwarded = forwardedFor.slice(forwardedFor.lastIndexOf(',') + 1).trim();
    if (forwarded) return forwarded;
  }
  return remoteAddress ?? 'unknown';
}

/** Liveness and readiness probes are never limited: an orchestrator must always reach them. */
const EXEMPT = new Set(['/health', '/ready', '/relayer/health']);

/**
 * The limiter on every HTTP request (REST, GraphQL, SSE). Every limited response carries
 * RateLimit-Limit/Remaining/Reset; a refusal is a 429 envelope with Retry-After.
 */
export function rateLimitPlugin(limiter: RateLimiter, trustProxy: boolean): Plugin {
  const headers = new WeakMap<Request, Record<string, string>>();
  return {
    async onRequest({ request, url, serverContext, endResponse }) {
      if (EXEMPT.has(url.pathname)) return;
      const req = (serverContext as { req?: IncomingMessage } | undefined)?.req;
      const ip = clientIp(request.headers.get('x-forwarded-for'), req?.socket?.remoteAddress, trustProxy);
      const decision = await limiter.consume({ token: bearerToken(request), ip });
      if (decision.allowed) headers.set(request, decision.headers);
      else endResponse(envelope(429, decision.message, decision.headers));
    },
    // Each mutation field is a write of its own: 15 aliased createQuote in one request spend 15, not 1.
    async onExecute({ args, setResultAndStopExecution }) {
      const extra = mutationFieldCount(args.document, args.operationName) - 1;
      if (extra <= 0) return;
      const context = args.contextValue as { request?: Request; req?: IncomingMessage };
      const upgradeForwardedFor = context.req?.headers['x-forwarded-for'];
      const forwardedFor =
        context.request?.headers.get('x-forwarded-for') ?? (typeof upgradeForwardedFor === 'string' ? upgradeForwardedFor : undefined);
      const ip = clientIp(forwardedFor, context.req?.socket?.remoteAddress, trustProxy);
      const decision = await limiter.consume({ token: bearerToken(context.request), ip }, extra);
      if (decision.allowed) return;
      const code: ErrorCode = 'RATE_LIMITED';
      setResultAndStopExecution({ errors: [new GraphQLError(decision.message, { extensions: { code } })] });
    },
    onResponse({ request, response }) {
      for (const [name, value] of Object.entries(headers.get(request) ?? {})) response.headers.set(name, value);
    },
  };
}

/** The top-level fields of the operation to run when it is a mutation (through fragments too); 0 otherwise. */
export function mutationFieldCount(document: DocumentNode, operationName: string | null | undefined): number {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const operation = operationName ? operations.find((o) => o.name?.value === operationName) : operations[0];
  if (operation?.operation !== 'mutation') return 0;
  const fragments = new Map(
    document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((f) => [f.name.value, f]),
  );
  const seen = new Set<string>();
  const count = (selections: SelectionSetNode): number =>
    selections.selections.reduce((sum, selection) => {
      if (selection.kind === Kind.FIELD) return sum + 1;
      if (selection.kind === Kind.INLINE_FRAGMENT) return sum + count(selection.selectionSet);
      const fragment = fragments.get(selection.name.value);
      // A fragment spread twice runs its fields once per response key; validation refuses cycles anyway.
      if (!fragment || seen.has(fragment.name.value)) return sum;
      seen.add(fragment.name.value);
      return sum + count(fragment.selectionSet);
    }, 0);
  return count(operation.selectionSet);
}

function rateHeaders(limit: number, res: RateLimiterRes): Record<string, string> {
  return {
    'ratelimit-limit': String(limit),
    'ratelimit-remaining': String(Math.max(0, res.remainingPoints)),
    'ratelimit-reset': String(Math.max(0, Math.ceil(res.msBeforeNext / 1000))),
  };
}
