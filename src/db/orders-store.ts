import { NEWEST_FIRST, type Pagination } from '../domain/order-list.ts';
import { countByStatus } from '../domain/status/count.ts';
import type { OrderStatus } from '../domain/status/rule.ts';
import type { Order, Prisma, PrismaClient } from '../generated/prisma/client.ts';
import type { OrderLookup } from '../domain/order-lookup.ts';
import { lookupOrderIds } from './order-lookups.ts';
import type { OrderKey, RowStore } from './row-store.ts';

/**
 * Reading orders: one order, an offset page, a keyset page, a count. The GraphQL types call these
 * and nothing else, so how a read is planned lives here, beside the SQL, not in the schema.
 *
 * Rows come through the row store (row-store.ts), below Prisma Client: these are the hottest reads,
 * and Prisma Client's own CPU per query exceeds the query's. Prisma owns the filters: a filtered page
 * asks it for ids alone (a deferred join), then reads those rows.
 * - Deep pages: skipping through ids costs an index walk; reading every skipped row would not.
 * - Status pages: for `stage = completed ORDER BY created_at DESC`, PostgreSQL takes the created_at
 *   index and filters (skipping every newer row that is not completed), since it cannot know that
 *   recent orders are rarely completed; asked for ids alone, it reads the (stage, created_at, id)
 *   index only.
 */

/** Which orders a list holds. */
export interface OrderSet {
  /** The domain's filter (order-list.ts), as of `now`: statuses move with the clock. */
  where: Prisma.OrderWhereInput;
  now: Date;
  /** Exactly one user's orders: every read is then one indexed statement (user_id, created_at, id). */
  userId?: string;
  /** Orders named by a transaction or a swap id: resolved to ids first (order-lookups.ts), then filtered with `where`. */
  lookup?: OrderLookup;
  /** The filter is statuses alone (or nothing, 'all'): the count then comes from the rollups. */
  statuses?: OrderStatus[] | 'all';
}

/** A keyset page: `limit` orders past `after` (older, or newer when `newer`), newest first. */
export interface KeysetRange {
  after?: OrderKey;
  newer: boolean;
  limit: number;
}

export interface ReadOptions {
  /** The reader wants both intents of every order: read them in the same statement (row-store.ts). */
  withIntents?: boolean;
  /** The reader wants the total too: a user's page then counts in the same statement. */
  withTotal?: boolean;
}

export interface ByIdOptions {
  /**
   * Read through the row store's prepared statement, not Prisma Client: for the reads every live update repeats
   * on every instance, and an escrow event's answer (src/schema/order.ts, orderOrThrow). Prisma Client gathers
   * concurrent reads by id into one `IN` list, a statement of another text for each length, which PostgreSQL
   * parses and plans anew; the row store's `id = ANY($1)` is one text, planned once per connection. The price
   * is the SQL span (README, Traces).
   * Where reads are prepared (PostgreSQL), both intents come in the same statement (ReadOptions.withIntents): one
   * round trip per update, not two. On PGlite, which plans every read anew, planning that join over the intents'
   * partitions costs more than a second statement.
   */
  prepared?: boolean;
}

/** An offset page whose rows and total are each read once, and only when asked for. */
export interface OffsetPage extends Pagination {
  rows(): Promise<Order[]>;
  total(): Promise<number>;
}

export interface OrdersStore {
  /**
   * The primary's Prisma Client, for the GraphQL Prisma plugin alone (src/schema/builder.ts): its
   * relation loading and connection batching are themselves reads of orders.
   */
  readonly client: PrismaClient;
  byId(id: string, options?: ByIdOptions): Promise<Order | null>;
  offsetPage(set: OrderSet, pagination: Pagination, options?: ReadOptions): OffsetPage;
  keysetPage(set: OrderSet, range: KeysetRange, options?: ReadOptions): Promise<Order[]>;
  count(set: OrderSet): Promise<number>;
  /** A user's page as JSON text, each order rendered by PostgreSQL (RowStore.userPageJson), and the user's total. */
  userPageJson(
    userId: string,
    pagination: Pagination,
    orderJson: (now: string) => string,
    now: Date,
  ): Promise<{ data: string; total: number }>;
}

const isEveryOrder = (set: OrderSet) => set.userId === undefined && Object.keys(set.where).length === 0;

export function createOrdersStore(prisma: PrismaClient, rows: RowStore): OrdersStore {
  async function idsThenRows(where: Prisma.OrderWhereInput, skip: number, take: number, withIntents?: boolean): Promise<Order[]> {
    const ids = await prisma.order.findMany({ select: { id: true }, where, orderBy: NEWEST_FIRST, skip, take });
    return rows.ordersById(
      ids.map((order) => order.id),
      withIntents,
    );
  }

  /** The set with its lookup resolved into `where`: a lookup names a handful of orders, read by id. */
  async function resolved(set: OrderSet): Promise<OrderSet> {
    if (!set.lookup) return set;
    const ids = await lookupOrderIds(prisma, set.lookup);
    return { where: { AND: [set.where, { id: { in: ids } }] }, now: set.now };
  }

  const store: OrdersStore = {
    client: prisma,
    // Through Prisma Client unless asked: a request's one read by primary key is not a hot path, and its
    // traces show the SQL (README, Traces); the row store's statements have no spans.
    byId: async (id, { prepared } = {}) =>
      prepared ? ((await rows.ordersById([id], rows.preparedReads))[0] ?? null) : prisma.order.findUnique({ where: { id } }),

    offsetPage(set, pagination, options = {}) {
      if (set.lookup) {
        const page = resolved(set).then((plain) => store.offsetPage(plain, pagination, options));
        return { ...pagination, rows: async () => (await page).rows(), total: async () => (await page).total() };
      }
      const { withIntents, withTotal } = options;
      const skip = (pagination.page - 1) * pagination.limit;
      const { userId } = set;
      if (userId !== undefined && withTotal) {
        // Rows and total from one statement; a page past the end has no row to carry the count.
        let read: Promise<{ orders: Order[]; total: number | undefined }> | undefined;
        const both = () => (read ??= rows.userPage({ userId, limit: pagination.limit, offset: skip, withIntents }));
        return {
          ...pagination,
          rows: async () => (await both()).orders,
          total: async () => (await both()).total ?? store.count(set),
        };
      }
      let pageRows: Promise<Order[]> | undefined;
      let total: Promise<number> | undefined;
      const page: OffsetPage = {
        ...pagination,
        rows: () =>
          (pageRows ??=
            userId !== undefined || isEveryOrder(set)
              ? rows.ordersInOrder({ userId, limit: pagination.limit, offset: skip, withIntents })
              : idsThenRows(set.where, skip, pagination.limit, withIntents)),
        // A first page shorter than its limit is the whole list: its length is the total, with no
        // COUNT (most users' pages). Asking for the rows here costs nothing when they are asked
        // for too, and 20 rows by index when they are not.
        total: () =>
          (total ??=
            skip === 0
              ? page.rows().then((first) => (first.length < pagination.limit ? first.length : store.count(set)))
              : store.count(set)),
      };
      return page;
    },

    async keysetPage(lookupSet, range, { withIntents } = {}) {
      const set = await resolved(lookupSet);
      if (set.userId !== undefined || isEveryOrder(set)) return rows.ordersInOrder({ userId: set.userId, ...range, withIntents });
      const { after, newer, limit } = range;
      // Prisma writes a cursor as `(created_at = X AND id < Y) OR created_at < X`, which no index can
      // start from; this leading range starts the scan at the key.
      const keyset: Prisma.OrderWhereInput = !after
        ? {}
        : newer
          ? { createdAt: { gte: after.createdAt }, OR: [{ createdAt: { gt: after.createdAt } }, { id: { gt: after.id } }] }
          : { createdAt: { lte: after.createdAt }, OR: [{ createdAt: { lt: after.createdAt } }, { id: { lt: after.id } }] };
      const ids = await prisma.order.findMany({
        select: { id: true },
        where: { AND: [set.where, keyset] },
        orderBy: NEWEST_FIRST,
        // A negative take reads towards the newest and still answers newest first.
        take: newer ? -limit : limit,
      });
      return rows.ordersById(
        ids.map((order) => order.id),
        withIntents,
      );
    },

    userPageJson: (userId, pagination, orderJson, now) =>
      rows.userPageJson({ userId, limit: pagination.limit, offset: (pagination.page - 1) * pagination.limit }, orderJson, now),

    async count(lookupSet) {
      const set = await resolved(lookupSet);
      if (set.statuses) return countByStatus(prisma, set.statuses, set.now);
      if (set.userId !== undefined) return rows.countOrders(set.userId);
      return prisma.order.count({ where: set.where });
    },
  };
  return store;
}
