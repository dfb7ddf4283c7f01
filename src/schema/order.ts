import type { KeysetRange, OffsetPage, OrderSet } from '../db/orders-store.ts';
import { intentRead, withIntentsRead, type OrderKey } from '../db/row-store.ts';
import { selects } from './selection.ts';
import { requireWriter } from '../http/api-keys.ts';
import { BadRequestError } from '../domain/errors.ts';
import {
  GRAPHQL_FILTER_NAMES,
  MAX_LIMIT,
  orderFilterWhere,
  pageInfo,
  parseStatuses,
  parsePagination,
  type OrderFilterInput,
} from '../domain/order-list.ts';
import { parseInput } from '../domain/input.ts';
import { MAX_IDS, orderLookup } from '../domain/order-lookup.ts';
import { assertFound, createOrder, createOrderSchemaFor, orderIdOrNotFound, parseUserId, type CreatedOrder } from '../domain/orders.ts';
import { ORDER_STATUSES, statusAt, type OrderStatus } from '../domain/status/rule.ts';
import type { Intent as IntentRow, Order as OrderRow } from '../generated/prisma/client.ts';
import { builder } from './builder.ts';
import type { GraphQLContext } from './context.ts';
import { Intent } from './intent.ts';

const STATUS_DESCRIPTIONS: Record<OrderStatus, string> = {
  pending: "Created; the source escrow is not created yet (even if the destination's is). In progress.",
  source_created: "The user's source escrow is created. In progress.",
  destination_created: "The solver's destination escrow is created too. In progress.",
  destination_claimed: 'The user claimed the destination (the secret is revealed): the user has their funds. Counts as completed.',
  completed: 'The source escrow ended too (claimed by the solver, or cancelled after the user claimed). Completed.',
  refunding: 'The destination escrow was cancelled or passed its cancelAfter unclaimed; the source is not cancelled yet. In progress.',
  cancelled: 'The source escrow was cancelled: refunded to the user. Counts as cancelled.',
  expired: "No source escrow before the order's deadline (ORDER_DEADLINE_SECONDS after creation). Counts as cancelled.",
};

export const OrderStatusEnum = builder.enumType('OrderStatus', {
  description: "Derived from the intents' on-chain facts and the clock; REST spells it in lowercase.",
  values: Object.fromEntries(
    ORDER_STATUSES.map((status) => [status.toUpperCase(), { value: status, description: STATUS_DESCRIPTIONS[status] }]),
  ) as Record<Uppercase<OrderStatus>, { value: OrderStatus; description: string }>,
});

export const Order = builder.prismaObject('Order', {
  description: "A swap: the user's source intent paired with the solver's destination intent.",
  fields: (t) => ({
    orderId: t.exposeString('id', { description: '64 lowercase hex characters, opaque.' }),
    userId: t.exposeString('userId', { description: 'The user who made the order.' }),
    quoteId: t.exposeString('quoteId', { description: 'The quote this order consumed.' }),
    status: t.field({
      description: 'Where the swap is, at the time of the read.',
      type: OrderStatusEnum,
      resolve: (order, _args, ctx) => statusAt(order, ctx.now()),
    }),
    sourceTokenPrice: t.string({ description: 'USD, decimal string.', resolve: (o) => o.sourceTokenPrice.toFixed() }),
    destTokenPrice: t.string({ description: 'USD, decimal string.', resolve: (o) => o.destTokenPrice.toFixed() }),
    feeBips: t.exposeInt('feeBips', { description: "The quote's fee, basis points." }),
    // Both sides through one loader: a page's intents are one query, where two relations make two.
    sourceIntent: t.field({
      description: "The user's escrow on the source chain.",
      type: Intent,
      resolve: (order, _args, ctx) => intentOf(ctx, order, order.sourceSwapId),
    }),
    destinationIntent: t.field({
      description: "The solver's escrow on the destination chain.",
      type: Intent,
      resolve: (order, _args, ctx) => intentOf(ctx, order, order.destinationSwapId),
    }),
    createdAt: t.expose('createdAt', { description: 'When the order was created.', type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { description: 'Last change (an escrow event on either side).', type: 'DateTime' }),
  }),
});

/** Intents that came with the order (a page read with them, the rows a create wrote) need no query. */
function intentOf(ctx: GraphQLContext, order: object, swapId: string): IntentRow | Promise<IntentRow> {
  return intentRead(order, swapId) ?? ctx.loaders.intent.load(swapId);
}

/**
 * An order that must exist (one an event or a write just named): its absence is a fault, masked as internal.
 * Every live update reads one, on every instance: through the prepared statement, with its intents where reads are
 * prepared (orders-store.ts, ByIdOptions).
 */
export async function orderOrThrow(ctx: GraphQLContext, orderId: string): Promise<OrderRow> {
  const order = await ctx.orders.byId(orderId, { prepared: true });
  if (!order) throw new Error(`order ${orderId} is gone`);
  return order;
}

const INTENT_FIELDS = ['sourceIntent', 'destinationIntent'];

const OrderFilter = builder.inputType('OrderFilter', {
  description: 'Filters for order lists; all given conditions must hold.',
  fields: (t) => ({
    status: t.field({ type: [OrderStatusEnum], required: false, description: 'Any of these statuses.' }),
    sourceChain: t.string({ description: 'Source chain id.', required: false }),
    destChain: t.string({ description: 'Destination chain id.', required: false }),
    asset: t.string({ required: false, description: 'Source or destination asset id (chain:token).' }),
    from: t.field({ type: 'DateTime', required: false, description: 'created_at >= from' }),
    to: t.field({ type: 'DateTime', required: false, description: 'created_at < to' }),
    txHash: t.string({
      required: false,
      description:
        "Orders with this transaction as the create, claim, cancel or bridge transaction of either intent. 0x-hex in any letter case; other chains' hashes in their own format (a Bitcoin txid, a Solana signature).",
    }),
    swapId: t.string({
      required: false,
      description: 'The order whose source or destination intent has this swap id (64 hex, optional 0x).',
    }),
    ids: t.stringList({
      required: false,
      description: `These orders, at most ${MAX_IDS}. Unknown ids, and ids that cannot exist, are simply absent.`,
    }),
  }),
});

const OrderPage = builder.objectRef<OffsetPage>('OrderPage').implement({
  description: 'Offset page, newest first. A page past the end has empty data and correct totals.',
  fields: (t) => ({
    data: t.field({ description: 'The orders of this page.', type: [Order], resolve: (page) => page.rows() }),
    page: t.exposeInt('page', { description: "This page's number, from 1." }),
    limit: t.exposeInt('limit', { description: 'Orders per page.' }),
    total: t.int({ description: 'Orders matching, on all pages.', resolve: (page) => page.total() }),
    totalPages: t.int({
      description: 'ceil(total / limit).',
      resolve: async (page) => pageInfo(page, await page.total()).totalPages,
    }),
  }),
});

/** Pothos' cursor query (a cursor row to skip, a signed take) as the store's keyset range. */
function keysetRange(query: { cursor?: unknown; skip?: number; take?: number }): KeysetRange {
  const take = query.take ?? 0;
  const at = (query.cursor as { createdAt_id?: { createdAt?: unknown; id?: unknown } } | undefined)?.createdAt_id;
  // Newest first: "after" the cursor (take > 0) is older, "before" it (take < 0) is newer.
  return { after: at && orderKey(at), newer: take < 0, limit: Math.abs(take) };
}

/** A cursor's key as Pothos decoded it: older cursors carry the time as text, a forged one anything. */
function orderKey(at: { createdAt?: unknown; id?: unknown }): OrderKey {
  const createdAt = at.createdAt instanceof Date || typeof at.createdAt === 'string' ? new Date(at.createdAt) : undefined;
  // The id goes into SQL: only an order id's form (a forged one may hold a NUL, which PostgreSQL text refuses).
  if (!createdAt || Number.isNaN(createdAt.getTime()) || typeof at.id !== 'string' || !/^[0-9a-f]{64}$/.test(at.id)) {
    throw new BadRequestError('invalid cursor');
  }
  return { createdAt, id: at.id };
}

function filterInput(filter: ({ status?: OrderStatus[] | null } & Record<string, unknown>) | null | undefined) {
  if (!filter) return {};
  const input: OrderFilterInput = {};
  for (const [key, value] of Object.entries(filter)) if (value != null) input[key as keyof OrderFilterInput] = value;
  return input;
}

builder.queryFields((t) => ({
  order: t.field({
    description: 'One order by id (`GET /orders/{order_id}`); NOT_FOUND when there is none.',
    type: Order,
    nullable: true,
    args: { orderId: t.arg.string({ description: "The order's id.", required: true }) },
    resolve: async (_root, args, ctx) => assertFound(await ctx.orders.byId(orderIdOrNotFound(args.orderId)), args.orderId),
  }),
  orders: t.field({
    description: 'Orders, newest first, filtered (`GET /orders`).',
    type: OrderPage,
    args: {
      page: t.arg.int({ required: false, description: 'Page number, 1 to 999999999; default 1.' }),
      limit: t.arg.int({ required: false, description: `Orders per page, 1 to ${MAX_LIMIT}; default 20.` }),
      filter: t.arg({ description: 'Only orders matching all of these.', type: OrderFilter, required: false }),
    },
    resolve: (_root, args, ctx, info) => {
      const filter = filterInput(args.filter);
      const keys = Object.keys(filter);
      const now = ctx.now();
      const set: OrderSet = {
        where: orderFilterWhere(ctx.registry, filter, now),
        lookup: orderLookup(ctx.registry, filter, GRAPHQL_FILTER_NAMES),
        now,
        statuses: keys.length === 0 ? 'all' : keys.length === 1 && filter.status ? parseStatuses(filter.status) : undefined,
      };
      return ctx.orders.offsetPage(set, parsePagination(args), { withIntents: selects(info, ['data'], INTENT_FIELDS) });
    },
  }),
  ordersByUser: t.field({
    description: "A user's orders, newest first (`GET /orders/user/{user_id}`).",
    type: OrderPage,
    args: {
      userId: t.arg.string({ description: "The user's id.", required: true }),
      page: t.arg.int({ required: false, description: 'Page number, 1 to 999999999; default 1.' }),
      limit: t.arg.int({ required: false, description: `Orders per page, 1 to ${MAX_LIMIT}; default 20.` }),
    },
    resolve: (_root, args, ctx, info) => {
      const userId = parseUserId(args.userId);
      const withIntents = selects(info, ['data'], INTENT_FIELDS);
      const withTotal = selects(info, [], ['total', 'totalPages']);
      return ctx.orders.offsetPage({ where: { userId }, now: ctx.now(), userId }, parsePagination(args), { withIntents, withTotal });
    },
  }),
  ordersConnection: t.prismaConnection(
    {
      type: 'Order',
      cursor: 'createdAt_id',
      description: 'Keyset (cursor) pagination, newest first: cheap at any depth, unlike offset pages.',
      defaultSize: 20,
      maxSize: MAX_LIMIT,
      args: {
        filter: t.arg({ description: 'Only orders matching all of these.', type: OrderFilter, required: false }),
        userId: t.arg.string({ description: "Only this user's orders.", required: false }),
      },
      resolve: (query, _root, args, ctx, info) => {
        for (const size of ['first', 'last'] as const) {
          const value = args[size];
          if (value != null && (value < 0 || value > MAX_LIMIT)) throw new BadRequestError(`${size} must be from 0 to ${MAX_LIMIT}`);
        }
        const now = ctx.now();
        const input = filterInput(args.filter);
        const filter = orderFilterWhere(ctx.registry, input, now);
        const lookup = orderLookup(ctx.registry, input, GRAPHQL_FILTER_NAMES);
        const userId = args.userId == null ? undefined : parseUserId(args.userId);
        const set: OrderSet =
          userId === undefined
            ? { where: filter, lookup, now }
            : Object.keys(filter).length === 0 && !lookup
              ? { where: { userId }, now, userId }
              : { where: { AND: [filter, { userId }] }, lookup, now };
        // The store reads whole rows, so the selection Pothos asks for (with no node selected, the cursor's
        // columns) is always met: reading it tells Pothos' unused-query check (src/schema/builder.ts) so.
        Object.values(query);
        return ctx.orders.keysetPage(set, keysetRange(query), { withIntents: selects(info, ['edges', 'node'], INTENT_FIELDS) });
      },
    },
    { description: 'A page of orders, newest first, with cursors.' },
    { description: 'One order and its cursor.' },
  ),
}));

const OrderLegInput = builder.inputType('OrderLegInput', {
  description: "One side of a new order; must equal the quote's side.",
  fields: (t) => ({
    asset: t.string({ required: true, description: 'Asset id, chain:token.' }),
    recipient: t.string({ required: true, description: "The user's own address on that chain." }),
    amount: t.string({ required: true, description: 'Base units, decimal string.' }),
  }),
});

const CreateOrderInput = builder.inputType('CreateOrderInput', {
  description: "A new order from a quote, locked to the hash of the user's secret.",
  fields: (t) => ({
    userId: t.string({ description: "The user's id (any text without control characters).", required: true }),
    quoteId: t.string({ description: 'The quote to consume.', required: true }),
    source: t.field({
      description: "What the user sends: the quote's source asset and amount, and the user's address on that chain.",
      type: OrderLegInput,
      required: true,
    }),
    destination: t.field({
      description: "What the user receives: the quote's destination asset and amount, and the user's address on that chain.",
      type: OrderLegInput,
      required: true,
    }),
    commitmentHash: t.string({ required: true, description: 'sha256 of the secret, 32 bytes hex.' }),
  }),
});

const CreateOrderPayload = builder.objectRef<CreatedOrder>('CreateOrderPayload').implement({
  description: 'The order createOrder made, or found for a replay.',
  fields: (t) => ({
    replayed: t.exposeBoolean('replayed', {
      description: 'True when this exact request had already created the order (REST answers 200, not 201).',
    }),
    order: t.field({
      description: 'The order.',
      type: Order,
      // A new order answers from the rows just written; a replay reads the stored one.
      resolve: async (payload, _args, ctx) =>
        payload.stored
          ? withIntentsRead({ ...payload.stored.order }, payload.stored.intents)
          : assertFound(await ctx.orders.byId(payload.orderId), payload.orderId),
    }),
  }),
});

builder.mutationFields((t) => ({
  createOrder: t.field({
    type: CreateOrderPayload,
    description: 'Consumes the quote exactly once. Replaying the same input returns the same order.',
    args: { input: t.arg({ description: 'The order to create.', type: CreateOrderInput, required: true }) },
    resolve: (_root, { input }, ctx) => {
      requireWriter(ctx);
      return createOrder(ctx, parseInput(createOrderSchemaFor(ctx.registry), input));
    },
  }),
}));
