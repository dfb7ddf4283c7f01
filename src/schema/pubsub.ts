import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { createPubSub } from 'graphql-yoga';
import type { Redis } from 'ioredis';
import type { OrderEvents } from '../domain/order-events.ts';

/** Subscription topics: each carries the id of the order that changed. */
export type OrderPubSub = ReturnType<typeof createOrderPubSub>;

/**
 * In-process by default; with Redis (one client to publish, one to subscribe) a change made on any
 * instance reaches subscribers on all of them.
 */
export function createOrderPubSub(redis?: { publish: Redis; subscribe: Redis }) {
  return createPubSub<{
    orderUpdated: [orderId: string, payload: { orderId: string }];
    userOrdersUpdated: [userId: string, payload: { orderId: string }];
  }>(
    redis
      ? { eventTarget: createRedisEventTarget({ publishClient: redis.publish, subscribeClient: redis.subscribe }) }
      : undefined,
  );
}

export function pubSubOrderEvents(pubsub: OrderPubSub): OrderEvents {
  return {
    orderChanged({ orderId, userId }) {
      pubsub.publish('orderUpdated', orderId, { orderId });
      pubsub.publish('userOrdersUpdated', userId, { orderId });
    },
  };
}
