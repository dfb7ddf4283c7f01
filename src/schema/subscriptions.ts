import { orderIdOrNotFound, parseUserId } from '../domain/orders.ts';
import { builder } from './builder.ts';
import { Order, orderOrThrow } from './order.ts';

builder.subscriptionType({
  description:
    'Live updates over SSE or WebSocket (graphql-ws) on /graphql. Clock-driven changes (expired, refunding) are seen on the next read, not pushed.',
});

builder.subscriptionFields((t) => ({
  orderUpdated: t.field({
    type: Order,
    description: 'The order, each time it changes (escrow events, claims).',
    args: { orderId: t.arg.string({ description: 'The order to follow.', required: true }) },
    subscribe: (_root, args, ctx) => {
      // Each event is read as it commits: on the primary, never on a replica still replaying it.
      ctx.reads.pinPrimary();
      return ctx.pubsub.subscribe('orderUpdated', orderIdOrNotFound(args.orderId));
    },
    resolve: (payload, _args, ctx) => orderOrThrow(ctx, (payload as { orderId: string }).orderId),
  }),
  userOrdersUpdated: t.field({
    type: Order,
    description: 'Any order of this user, when it is created or changes.',
    args: { userId: t.arg.string({ description: 'The user whose orders to follow.', required: true }) },
    subscribe: (_root, args, ctx) => {
      ctx.reads.pinPrimary();
      return ctx.pubsub.subscribe('userOrdersUpdated', parseUserId(args.userId));
    },
    resolve: (payload, _args, ctx) => orderOrThrow(ctx, (payload as { orderId: string }).orderId),
  }),
}));
