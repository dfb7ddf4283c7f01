import { GraphQLError, type ExecutionResult } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { IncomingMessage } from 'node:http';
import type { ErrorCode } from '../domain/errors.ts';
import type { ConnectionsPerIp } from './connections-per-ip.ts';
import { clientIp } from './rate-limit.ts';

/**
 * A count of active subscriptions against a cap: one per instance (SSE and WebSocket together),
 * one per WebSocket. Each holds a pubsub listener (and, with Redis, a channel) until it ends.
 */
export class SubscriptionSlots {
  private taken = 0;
  constructor(
    readonly limit: number,
    /** Says which cap refused, for the client's error message. */
    private readonly refusal: string,
  ) {}

  get active(): number {
    return this.taken;
  }

  take(): boolean {
    if (this.taken >= this.limit) return false;
    this.taken += 1;
    return true;
  }

  release(): void {
    this.taken = Math.max(0, this.taken - 1);
  }

  error(): GraphQLError {
    const code: ErrorCode = 'TOO_MANY_SUBSCRIPTIONS';
    return new GraphQLError(this.refusal, { extensions: { code } });
  }
}

export const instanceSlots = (limit: number) =>
  new SubscriptionSlots(limit, `this server holds its maximum of ${limit} active subscriptions; retry later or on another instance`);

export const connectionSlots = (limit: number) =>
  new SubscriptionSlots(limit, `a connection may hold at most ${limit} active subscriptions; complete one first`);

/** What a WebSocket puts in its operations' context, so its own cap is counted beside the instance's. */
export interface SubscriptionContext {
  connectionSubscriptions?: SubscriptionSlots;
  /** An HTTP request's (SSE): who is asking. */
  request?: Request;
  req?: IncomingMessage;
}

/** Open SSE streams per client IP, and whether X-Forwarded-For names it (TRUST_PROXY). */
export interface StreamsPerIp {
  slots: ConnectionsPerIp;
  trustProxy: boolean;
}

/**
 * The IP an SSE subscription is counted under, as the rate limiter sees it; undefined for a WebSocket
 * operation (its socket was counted at the upgrade) and for a request made in-process (no peer at all).
 */
function sseClientIp(context: SubscriptionContext, trustProxy: boolean): string | undefined {
  if (context.connectionSubscriptions || !context.request) return undefined;
  const peer = context.req?.socket?.remoteAddress;
  const forwarded = trustProxy ? context.request.headers.get('x-forwarded-for') : null;
  return peer || forwarded ? clientIp(forwarded, peer, trustProxy) : undefined;
}

/**
 * Caps active subscriptions in the envelop subscribe step, which SSE (Yoga's own transport) and
 * WebSocket (src/websocket.ts, through the enveloped subscribe) both go through. Past a cap the
 * operation gets one error result and nothing else happens; a slot comes back when its stream ends
 * however it ends: completed, failed, cancelled by the client, or its socket closed.
 */
export function subscriptionLimitPlugin(instance: SubscriptionSlots, streamsPerIp?: StreamsPerIp): Plugin<SubscriptionContext> {
  return {
    onSubscribe({ context, subscribeFn, setSubscribeFn }) {
      const slots = [instance, context.connectionSubscriptions].filter((s): s is SubscriptionSlots => s !== undefined);
      // An SSE stream holds a socket as long as the client likes, as a WebSocket does: capped per IP alike.
      const ip = streamsPerIp && sseClientIp(context, streamsPerIp.trustProxy);
      setSubscribeFn(async (args) => {
        if (ip !== undefined && !streamsPerIp!.slots.take(ip)) {
          const code: ErrorCode = 'TOO_MANY_SUBSCRIPTIONS';
          return { errors: [new GraphQLError(streamsPerIp!.slots.refusal(), { extensions: { code } })] } satisfies ExecutionResult;
        }
        const releaseIp = () => ip !== undefined && streamsPerIp!.slots.release(ip);
        const taken: SubscriptionSlots[] = [];
        for (const s of slots) {
          if (!s.take()) {
            for (const t of taken) t.release();
            releaseIp();
            return { errors: [s.error()] } satisfies ExecutionResult;
          }
          taken.push(s);
        }
        let released = false;
        const release = () => {
          if (released) return;
          released = true;
          for (const t of taken) t.release();
          releaseIp();
        };
        try {
          const result = await subscribeFn(args);
          if (!isAsyncIterable(result)) {
            release();
            return result;
          }
          return releasing(result, release);
        } catch (error) {
          release();
          throw error;
        }
      });
    },
  };
}

/**
 * The stream as it is, calling release once when it ends. Hand-written rather than an async
 * generator: a generator queues return() behind a pending next(), so a client's cancel would
 * wait for the next event to free its slot.
 */
function releasing<T>(source: AsyncIterable<T>, release: () => void): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  const generator = {
    [Symbol.asyncIterator]: () => generator,
    async next() {
      try {
        const step = await iterator.next();
        if (step.done) release();
        return step;
      } catch (error) {
        release();
        throw error;
      }
    },
    async return(value) {
      release();
      return (await iterator.return?.(value)) ?? { done: true, value: undefined };
    },
    async throw(error: unknown) {
      release();
      if (iterator.throw) return iterator.throw(error);
      throw error;
    },
  } as AsyncGenerator<T>;
  return generator;
}
