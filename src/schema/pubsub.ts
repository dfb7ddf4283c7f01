import { randomUUID } from 'node:crypto';
import { createPubSub, type PubSubEventTarget } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { OrderEvents } from '../domain/order-events.ts';
import type { RedisFailure } from '../http/metrics.ts';
import { throttledWarn, type RedisLink } from '../redis.ts';

/** Subscription topics: each carries the id of the order that changed. */
export type OrderPubSub = ReturnType<typeof createOrderPubSub>;

type Payload = { orderId: string };
type OrderTopics = {
  orderUpdated: [orderId: string, payload: Payload];
  userOrdersUpdated: [userId: string, payload: Payload];
};

/**
 * The other worker processes of this instance (`WORKERS`, src/cluster.ts): what one publishes reaches every
 * other, and never comes back to it. They share one `origin` on Redis, so none of them takes a sibling's
 * change from Redis as well: within the host the link carries it, with Redis up or down.
 */
export interface SiblingLink {
  origin: string;
  send(topic: string, detail: Payload): void;
  listen(deliver: (topic: string, detail: Payload) => void): void;
}

/**
 * In-process by default; with Redis a change made on any instance reaches subscribers on all of them;
 * `siblings` carries it to this instance's other worker processes.
 */
export function createOrderPubSub(
  redis?: RedisLink,
  logger?: Logger,
  onRedisFailure?: (kind: RedisFailure) => void,
  siblings?: SiblingLink,
) {
  return createPubSub<OrderTopics>({ eventTarget: fanOutEventTarget(redis, logger, onRedisFailure, siblings) });
}

export function pubSubOrderEvents(pubsub: OrderPubSub): OrderEvents {
  return {
    orderChanged({ orderId, userId }) {
      pubsub.publish('orderUpdated', orderId, { orderId });
      pubsub.publish('userOrdersUpdated', userId, { orderId });
    },
  };
}

type Listener = ((event: CustomEvent<Payload>) => void) | { handleEvent(event: CustomEvent<Payload>): void };

/**
 * An event target that delivers to this process's listeners at once, passes the event to its sibling
 * workers (if any), and publishes to Redis for the other instances; messages this instance published
 * itself are ignored when they come back.
 * So a subscriber never depends on Redis for a change made on its own instance: while Redis is
 * down, local subscriptions still fire, and a failed PUBLISH is logged and counted (metrics), never thrown.
 * (graphql-yoga's Redis event target leaves PUBLISH's rejection unhandled, which ends the process.)
 * Topics are subscribed on Redis while they have a local listener; ioredis subscribes them again
 * after a reconnection, and so does the 'ready' handler below, so fan-out resumes by itself.
 */
export function fanOutEventTarget(
  redis?: RedisLink,
  logger?: Logger,
  onRedisFailure: (kind: RedisFailure) => void = () => {},
  siblings?: SiblingLink,
): PubSubEventTarget<OrderTopics> {
  const listeners = new Map<string, Set<Listener>>();
  const origin = siblings?.origin ?? randomUUID();
  const deliver = (topic: string, detail: Payload) => {
    const event = new CustomEvent(topic, { detail });
    for (const listener of listeners.get(topic) ?? []) {
      if (typeof listener === 'function') listener(event);
      else listener.handleEvent(event);
    }
  };
  const warnPublish = logger ? throttledWarn(logger, 'redis publish failed; fan-out to other instances skipped') : () => {};
  const warnSubscribeOnce = logger ? throttledWarn(logger, 'redis subscribe failed') : () => {};
  const warnSubscribe = (message: string) => {
    onRedisFailure('subscribe');
    warnSubscribeOnce(message);
  };

  siblings?.listen(deliver);
  if (redis) {
    redis.subscriber.on('message', (topic: string, message: string) => {
      let parsed: { origin?: string; detail?: Payload };
      try {
        parsed = JSON.parse(message) as typeof parsed;
      } catch {
        return;
      }
      if (parsed.origin !== origin && parsed.detail) deliver(topic, parsed.detail);
    });
    redis.subscriber.on('ready', () => {
      if (listeners.size > 0) redis.subscriber.subscribe(...listeners.keys()).catch((err: Error) => warnSubscribe(err.message));
    });
  }

  const target = {
    addEventListener(topic: string, listener: Listener | null) {
      if (!listener) return;
      let set = listeners.get(topic);
      if (!set) {
        set = new Set();
        listeners.set(topic, set);
        redis?.subscriber.subscribe(topic).catch((err: Error) => warnSubscribe(err.message));
      }
      set.add(listener);
    },
    removeEventListener(topic: string, listener: Listener | null) {
      if (!listener) return;
      const set = listeners.get(topic);
      if (!set) return;
      set.delete(listener);
      if (set.size > 0) return;
      listeners.delete(topic);
      redis?.subscriber.unsubscribe(topic).catch((err: Error) => warnSubscribe(err.message));
    },
    dispatchEvent(event: { type: string; detail: Payload }) {
      deliver(event.type, event.detail);
      siblings?.send(event.type, event.detail);
      redis?.client.publish(event.type, JSON.stringify({ origin, detail: event.detail })).catch((err: Error) => {
        onRedisFailure('publish');
        warnPublish(err.message);
      });
      return true;
    },
  };
  return target as unknown as PubSubEventTarget<OrderTopics>;
}
