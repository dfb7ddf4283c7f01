import { requireWriter } from '../http/api-keys.ts';
import { BadRequestError } from '../domain/errors.ts';
import {
  MAX_LIMIT,
  NEWEST_FIRST,
  orderFilterWhere,
  pageInfo,
  parseStatuses,
  parsePagination,
  type OrderFilterInput,
} from '../domain/order-list.ts';
import { parseInput } from '../domain/input.ts';
import { assertFound, createOrder, createOrderSchemaFor, orderIdOrNotFound, parseUserId, type CreatedOrder } from '../domain/orders.ts';
import { countByStatus } from '../domain/status/count.ts';
import { ORDER_STATUSES, statusAt, type OrderStatus } from '../domain/status/rule.ts';
import type { Intent as IntentRow, Order as OrderRow, Prisma } from '../generated/prisma/client.ts';
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

/** Intents a just-written order carries (the rows its INSERT returned), so they need no query. */
const WRITTEN_INTENTS = Symbol('writtenIntents');
type WithWrittenIntents = { [WRITTEN_INTENTS]?: IntentRow[] };

function intentOf(ctx: GraphQLContext, order: object, swapId: string): IntentRow | Promise<IntentRow> {
  const written = (order as WithWrittenIntents)[WRITTEN_INTENTS];
  return written?.find((intent) => intent.swapId === swapId) ?? ctx.loaders.intent.load(swapId);
}

const OrderFilter = builder.inputType('OrderFilter', {
  description: 'Filters for order lists; all given conditions must hold.',
  fields: (t) => ({
    status: t.field({ type: [OrderStatusEnum], required: false, description: 'Any of these statuses.' }),
    sourceChain: t.string({ description: 'Source chain id.', required: false }),
    destChain: t.string({ description: 'Destination chain id.', required: false }),
    asset: t.string({ required: false, description: 'Source or destination asset id (chain:token).' }),
    from: t.field({ type: 'DateTime', required: false, description: 'created_at >= from' }),
    to: t.field({ type: 'DateTime', required: false, description: 'created_at < to' }),
  }),
});

/** A page of orders as the REST list endpoints return it (README, REST and GraphQL). */
interface OrderPageShape {
  where: Prisma.OrderWhereInput;
  page: number;
  limit: number;
  /** Set for a user's orders: the page is then one indexed read (orders_user_id_created_at_id_idx). */
  userId?: string;
  /** Set when the filter is statuses alone (or nothing): the total then comes from the rollups. */
  statusesOnly?: OrderStatus[] | 'all';
}

/**
 * A page's rows come through the row store (src/db/row-store.ts), below Prisma Client: these are
 * the hottest reads, and Prisma Client's own CPU per query exceeds the query's.
 *
 * Deferred join for every filtered page: the page's ids from an index alone (through Prisma, which
 * owns the filters), then those rows.
 * - Deep pages: skipping through ids costs an index walk; reading every skipped row would not.
 * - Status pages: for `stage = completed ORDER BY created_at DESC`, PostgreSQL takes the
 *   created_at index and filters (60,000 newer rows skipped at a million orders), since it cannot
 *   know that recent orders are rarely completed; asked for ids alone, it reads the (stage,
 *   created_at, id) index only.
 */
async function pageRows(ctx: GraphQLContext, page: OrderPageShape, skip: number): Promise<OrderRow[]> {
  if (page.userId !== undefined) return ctx.rows.ordersOfUser(page.userId, page.limit, skip);
  const ids = await ctx.prisma.order.findMany({
    select: { id: true },
    where: page.where,
    orderBy: NEWEST_FIRST,
    skip,
    take: page.limit,
  });
  return ctx.rows.ordersById(ids.map((o) => o.id));
}

const OrderPage = builder.objectRef<OrderPageShape>('OrderPage').implement({
  description: 'Offset page, newest first. A page past the end has empty data and correct totals.',
  fields: (t) => ({
    data: t.field({
      description: 'The orders of this page.',
      type: [Order],
      resolve: (page, _args, ctx) => {
        const skip = (page.page - 1) * page.limit;
        const rows = pageRows(ctx, page, skip);
        if (skip === 0) firstPages.set(page, rows);
        return rows;
      },
    }),
    page: t.exposeInt('page', { description: "This page's number, from 1." }),
    limit: t.exposeInt('limit', { description: 'Orders per page.' }),
    total: t.int({ description: 'Orders matching, on all pages.', resolve: (page, _args, ctx) => countOrders(ctx, page) }),
    totalPages: t.int({
      description: 'ceil(total / limit).',
      resolve: async (page, _args, ctx) => pageInfo(page, await countOrders(ctx, page)).totalPages,
    }),
  }),
});

// total and totalPages share one COUNT per page object.
const counts = new WeakMap<OrderPageShape, Promise<number>>();
// A first page shorter than its limit is the whole list: its length is the total, no COUNT needed
// (most users' pages). The executor calls every field's resolver before awaiting any, so after one
// tick a `data` field asked alongside, in any order, has started its query.
const firstPages = new WeakMap<OrderPageShape, Promise<unknown[]>>();
function countOrders(ctx: GraphQLContext, page: OrderPageShape): Promise<number> {
  let count = counts.get(page);
  if (!count) {
    count = (async () => {
      await null;
      const firstPage = firstPages.get(page);
      const rows = firstPage ? await firstPage : undefined;
      return rows && rows.length < page.limit ? rows.length : countAll(ctx, page);
    })();
    counts.set(page, count);
  }
  return count;
}

function countAll(ctx: GraphQLContext, page: OrderPageShape): Promise<number> {
  return page.statusesOnly ? countByStatus(ctx.prisma, page.statusesOnly, ctx.now()) : ctx.prisma.order.count({ where: page.where });
}

/**
 * Prisma turns a cursor into `(created_at = X AND id <= Y) OR created_at < X`, which no index can
 * start from: at depth, PostgreSQL walks every newer order to find the cursor. The same condition
 * with a leading range (`created_at <= X AND (created_at < X OR id < Y)`) starts the index scan at
 * the cursor. Pothos asks for the cursor row and skips it (skip: 1); a strict comparison leaves it out.
 */
function keysetQuery<Q extends { cursor?: unknown; skip?: number; take?: number }>(
  query: Q,
): Omit<Q, 'cursor'> & { keyset: Prisma.OrderWhereInput } {
  const { cursor, ...rest } = query;
  const at = (cursor as { createdAt_id?: { createdAt: Date; id: string } } | undefined)?.createdAt_id;
  if (!at || rest.skip !== 1) return { ...query, keyset: {} };
  // Newest first: "after" the cursor (take > 0) is older, "before" it (take < 0) is newer.
  const older = (rest.take ?? 0) >= 0;
  const keyset: Prisma.OrderWhereInput = older
    ? { createdAt: { lte: at.createdAt }, OR: [{ createdAt: { lt: at.createdAt } }, { id: { lt: at.id } }] }
    : { createdAt: { gte: at.createdAt }, OR: [{ createdAt: { gt: at.createdAt } }, { id: { gt: at.id } }] };
  return { ...rest, skip: 0, keyset };
}

function filterInput(filter: ({ status?: OrderStatus[] | null } & Record<string, unknown>) | null | undefined) {
  if (!filter) return {};
  const input: OrderFilterInput = {};
  for (const [key, value] of Object.entries(filter)) if (value != null) input[key as keyof OrderFilterInput] = value;
  return input;
}

builder.queryFields((t) => ({
  order: t.prismaField({
    description: 'One order by id (`GET /orders/{order_id}`); NOT_FOUND when there is none.',
    type: 'Order',
    nullable: true,
    args: { orderId: t.arg.string({ description: "The order's id.", required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const id = orderIdOrNotFound(args.orderId);
      return assertFound(await ctx.prisma.order.findUnique({ ...query, where: { id } }), args.orderId);
    },
  }),
  orders: t.field({
    description: 'Orders, newest first, filtered (`GET /orders`).',
    type: OrderPage,
    args: {
      page: t.arg.int({ required: false, description: 'Page number from 1; default 1.' }),
      limit: t.arg.int({ required: false, description: `Orders per page, 1 to ${MAX_LIMIT}; default 20.` }),
      filter: t.arg({ description: 'Only orders matching all of these.', type: OrderFilter, required: false }),
    },
    resolve: (_root, args, ctx) => {
      const filter = filterInput(args.filter);
      const keys = Object.keys(filter);
      return {
        ...parsePagination(args),
        where: orderFilterWhere(ctx.registry, filter, ctx.now()),
        statusesOnly: keys.length === 0 ? 'all' : keys.length === 1 && filter.status ? parseStatuses(filter.status) : undefined,
      } satisfies OrderPageShape;
    },
  }),
  ordersByUser: t.field({
    description: "A user's orders, newest first (`GET /orders/user/{user_id}`).",
    type: OrderPage,
    args: {
      userId: t.arg.string({ description: "The user's id.", required: true }),
      page: t.arg.int({ required: false, description: 'Page number from 1; default 1.' }),
      limit: t.arg.int({ required: false, description: `Orders per page, 1 to ${MAX_LIMIT}; default 20.` }),
    },
    resolve: (_root, args, _ctx) => {
      const userId = parseUserId(args.userId);
      return { ...parsePagination(args), where: { userId }, userId };
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
      resolve: (query, _root, args, ctx) => {
        for (const size of ['first', 'last'] as const) {
          const value = args[size];
          if (value != null && (value < 0 || value > MAX_LIMIT)) throw new BadRequestError(`${size} must be from 0 to ${MAX_LIMIT}`);
        }
        const { keyset, ...rest } = keysetQuery(query);
        return ctx.prisma.order.findMany({
          ...rest,
          where: {
            AND: [
              orderFilterWhere(ctx.registry, filterInput(args.filter), ctx.now()),
              args.userId != null ? { userId: parseUserId(args.userId) } : {},
              keyset,
            ],
          },
          orderBy: NEWEST_FIRST,
        });
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
      resolve: (payload, _args, ctx) =>
        payload.stored
          ? Object.assign({ ...payload.stored.order }, { [WRITTEN_INTENTS]: payload.stored.intents })
          : ctx.prisma.order.findUniqueOrThrow({ where: { id: payload.orderId } }),
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
