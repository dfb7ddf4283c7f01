import type { ArgType, SqlQueryable } from '@prisma/driver-adapter-utils';
import type { Intent, Order, Prisma, Quote } from '../generated/prisma/client.ts';
import { batchedCalls, type Outcome } from './statement-batches.ts';
import type { QueryListener } from './database.ts';
import { KeyTakenError, type QuoteAndOrderStore } from '../domain/stores.ts';
import { newIdSql } from '../domain/webhook-events.ts';
import { isDatabaseUnavailable } from './unavailable.ts';
import { violatesUnique } from './unique-violation.ts';
import { INT, INTENT, ORDER, QUOTE, TEXT, TEXT_LIST, qualified, readRow, unnestColumns, type ModelColumns } from './model-columns.ts';

/**
 * The hot paths' SQL, sent through Prisma's driver adapter below Prisma Client.
 *
 * Why: Prisma Client spends more CPU per query than these queries cost (its result mapping runs in Node
 * on every call, where the adapter only sends the SQL and reads the rows), and each
 * write through Prisma Client runs its query compiler (WebAssembly) again. The rows that come
 * back are the models' own types (Decimal, Date, bigint), so every resolver takes them as it takes
 * Prisma's; test/row-store.test.ts checks they equal what Prisma Client returns.
 *
 * Only the list pages, the quote-to-order path and the read of one order for a live update are here; everything
 * else stays on Prisma Client.
 */
export interface RowReads {
  /**
   * Whether reads run as prepared statements, each planned once per connection (PostgreSQL, pg-reader.ts). On
   * PGlite every read is planned anew, which for a join over the partitions can cost more than running it.
   */
  readonly preparedReads: boolean;
  /** Orders whose id is in `ids`, newest first; with their intents when `withIntents`. */
  ordersById(ids: readonly string[], withIntents?: boolean): Promise<Order[]>;
  /** How many orders there are, or how many one user has (an index-only count). */
  countOrders(userId?: string): Promise<number>;
  /**
   * Orders newest first, all of them or one user's (index on user_id, created_at, id), from a
   * keyset position and/or an offset. `newer` reads towards the newest from `after` (a backward
   * page); the rows still come back newest first.
   */
  ordersInOrder(range: OrderRange): Promise<Order[]>;
  /**
   * One user's page and how many orders the user has, in one statement. The total is undefined
   * when no row came back (a page past the end): the caller counts then.
   */
  userPage(range: OrderRange & { userId: string }): Promise<{ orders: Order[]; total: number | undefined }>;
  /**
   * One user's page as JSON text and the user's total, in one statement: each order rendered by
   * `orderJson` (an SQL expression over the order row `o` and its intents `s` and `d`, given the SQL of
   * the clock `now`: src/rest/rendered-pages.ts), joined with commas, newest first.
   */
  userPageJson(
    range: OrderRange & { userId: string },
    orderJson: (now: string) => string,
    now: Date,
  ): Promise<{ data: string; total: number }>;
  /** Intents whose swap id is in `swapIds`, in no particular order. */
  intentsBySwapId(swapIds: readonly string[]): Promise<Intent[]>;
}

/**
 * The row store, with what the domain writes through it. insertOrderConsumingQuote is one statement:
 * one commit, and no lock held across round trips.
 */
export interface RowStore extends RowReads, QuoteAndOrderStore {}

/** Where an order sits in the newest-first order: the key of orders_created_at_id_key. */
export interface OrderKey {
  createdAt: Date;
  id: string;
}

export interface OrderRange {
  userId?: string;
  /** Read both intents in the same statement and attach them (intentsRead). */
  withIntents?: boolean;
  /** Strictly past this order: older by default, newer with `newer`. */
  after?: OrderKey;
  newer?: boolean;
  limit: number;
  offset?: number;
}

/** Intents read with their order (attached to the row, not a field of it): no second query for them. */
const INTENTS_READ = Symbol('intentsRead');

/**
 * Both intents of each order `o`, each looked up by its own key: `swap_id` with `created_at` (an order's
 * intents share its month, so each lookup prunes to one partition). Each is a LATERAL subquery with LIMIT 1
 * (the key is unique, so it changes no result) because PostgreSQL cannot flatten it into a plain join:
 * without planner statistics (a fresh install, a new month's partition) a plain join may be planned as a
 * merge or hash join on `created_at` over whole partitions (test/bench/README.md, What limits each path).
 */
export const BOTH_INTENTS = `CROSS JOIN LATERAL (SELECT * FROM intents i WHERE i.swap_id = o.source_swap_id AND i.created_at = o.created_at LIMIT 1) s
      CROSS JOIN LATERAL (SELECT * FROM intents i WHERE i.swap_id = o.destination_swap_id AND i.created_at = o.created_at LIMIT 1) d`;
type WithIntents = { [INTENTS_READ]?: readonly Intent[] };

/** The order with the intents that came with it (a page read withIntents, or the rows a create wrote). */
export function withIntentsRead<T extends object>(order: T, intents: readonly Intent[]): T {
  // Not enumerable: the row stays equal, field for field, to the one Prisma Client reads.
  return Object.defineProperty(order, INTENTS_READ, { value: intents });
}

/** The intent of this swap id if it came with the order; undefined when it must be loaded. */
export function intentRead(order: object, swapId: string): Intent | undefined {
  return (order as WithIntents)[INTENTS_READ]?.find((intent) => intent.swapId === swapId);
}

/**
 * Sends one read and returns its rows as arrays of column values, each as the driver adapter gives it or
 * already parsed (a Date for a time); model-columns.ts reads both. On PostgreSQL the reads go through pg
 * directly (pg-reader.ts), on PGlite through the adapter (adapterReader).
 */
export type RowReader = (sql: string, args: unknown[], argTypes: ArgType[]) => Promise<unknown[][]>;

/** Reads through the driver adapter, as the writes go. */
export function adapterReader(adapter: SqlQueryable): RowReader {
  return async (sql, args, argTypes) => (await adapter.queryRaw({ sql, args, argTypes })).rows;
}

/**
 * The row store over a driver adapter (its writes, and its reads unless `preparedReader` is given: on PostgreSQL
 * the reads skip the adapter, as prepared statements, pg-reader.ts).
 */
export function createRowStore(adapter: SqlQueryable, onQuery?: QueryListener, preparedReader?: RowReader): RowStore {
  const reader = preparedReader ?? adapterReader(adapter);
  /** A read. */
  function query(sql: string, args: unknown[], argTypes: ArgType[]): Promise<unknown[][]> {
    onQuery?.(sql, JSON.stringify(args));
    return reader(sql, args, argTypes);
  }
  /** A write (through the adapter, whose errors say which unique index a row broke: unique-violation.ts). */
  async function write(sql: string, args: unknown[], argTypes: ArgType[]): Promise<unknown[][]> {
    onQuery?.(sql, JSON.stringify(args));
    return (await adapter.queryRaw({ sql, args, argTypes })).rows;
  }
  const rowsOf = async <T>(model: ModelColumns, sql: string, args: unknown[], argTypes: ArgType[]) =>
    (await query(sql, args, argTypes)).map((row) => readRow<T>(model, row));

  /**
   * `orders` (a statement yielding order rows, newest first) with, when asked, both intents of
   * each row joined in the same statement: one round trip and one result for a whole page.
   */
  async function ordersFrom(orders: string, args: unknown[], argTypes: ArgType[], withIntents = false): Promise<Order[]> {
    return (await ordersWith(orders, args, argTypes, withIntents)).orders;
  }

  /** ordersFrom, plus one more value computed by the same statement (`extra`, an SQL expression), when any row came back. */
  async function ordersWith(orders: string, args: unknown[], argTypes: ArgType[], withIntents: boolean, extra?: string) {
    const also = extra ? `, ${extra}` : '';
    const sql = withIntents
      ? `SELECT ${qualified(ORDER, 'o')}, ${qualified(INTENT, 's')}, ${qualified(INTENT, 'd')}${also}
      FROM (${orders}) o
      ${BOTH_INTENTS}
      ORDER BY o.created_at DESC, o.id DESC`
      : `SELECT *${also} FROM (${orders}) o ORDER BY o.created_at DESC, o.id DESC`;
    const sourceAt = ORDER.columns.length;
    const destinationAt = sourceAt + INTENT.columns.length;
    const extraAt = withIntents ? destinationAt + INTENT.columns.length : sourceAt;
    const rows = extra || withIntents ? await query(sql, args, argTypes) : await query(orders, args, argTypes);
    return {
      orders: rows.map((row) => {
        const order = readRow<Order>(ORDER, row);
        if (!withIntents) return order;
        return withIntentsRead(order, [readRow<Intent>(INTENT, row, sourceAt), readRow<Intent>(INTENT, row, destinationAt)]);
      }),
      extra: rows[0]?.[extraAt],
    };
  }

  /** The statement of ordersInOrder, and its parameters. */
  function inOrder(range: OrderRange) {
    const args: unknown[] = [range.limit, range.offset ?? 0];
    const argTypes: ArgType[] = [INT, INT];
    const where: string[] = [];
    if (range.userId !== undefined) {
      args.push(range.userId);
      argTypes.push(TEXT);
      where.push(`user_id = $${args.length}`);
    }
    if (range.after) {
      // ISO with its zone: the adapter's own datetime format has none, and the column is timestamptz.
      args.push(range.after.createdAt.toISOString(), range.after.id);
      argTypes.push(TEXT, TEXT);
      // A row comparison starts the (created_at, id) index scan at the key, at any depth.
      where.push(`(created_at, id) ${range.newer ? '>' : '<'} ($${args.length - 1}::timestamptz, $${args.length})`);
    }
    const direction = range.newer ? 'ASC' : 'DESC';
    const sql =
      `SELECT ${ORDER.list} FROM orders${where.length ? ` WHERE ${where.join(' AND ')}` : ''}` +
      ` ORDER BY created_at ${direction}, id ${direction} LIMIT $1 OFFSET $2`;
    // Read towards the newest, then newest first like every page.
    return { sql: range.newer ? `SELECT * FROM (${sql}) AS towards_newest ORDER BY created_at DESC, id DESC` : sql, args, argTypes };
  }

  /**
   * userPageJson's statements, built once: the same string each time, so naming it for its prepared
   * statement (prepared-statements.ts) is a lookup, not a hash of its 5 KB again.
   */
  const pageJsonSql = new WeakMap<(now: string) => string, Map<string, string>>();

  const quoteById = async (id: string) => {
    const [quote] = await rowsOf<Quote>(QUOTE, `SELECT ${QUOTE.list} FROM quotes WHERE id = $1`, [id], [TEXT]);
    return quote ?? null;
  };

  /** Read once, then kept: the key never changes under a running instance (its migration makes it). */
  let signingKey: Promise<Uint8Array> | undefined;
  const readSigningKey = async () => {
    const [row] = await query('SELECT secret FROM quote_signing_keys WHERE id = 1', [], []);
    if (!row) throw new Error('quote_signing_keys holds no key: run the migrations (npm run db:migrate)');
    return Buffer.from(row[0] as string, 'hex');
  };

  /**
   * Orders with their intents, each storing its quote as consumed, in one statement (one commit, no lock held
   * across round trips): an order whose quote an order consumed already is not written, and comes back null.
   * A quote is inserted under its id; one already there (consumed, or stored before ids were signed and not
   * consumed yet) is taken only while it has no consumer. Of concurrent statements on one quote, the later
   * waits for the earlier's commit, then finds it taken. Of two orders on one quote in the same statement, the
   * first is tried and the other comes back null, as if it had lost the race to another statement.
   */
  async function ordersStatement(batch: readonly NewOrder[]): Promise<(StoredOrder | null)[]> {
    const quoteIds = new Set<string>();
    const quotes = batch.flatMap(({ quote, order }) => {
      if (quoteIds.has(quote.id)) return [];
      quoteIds.add(quote.id);
      return [{ ...quote, consumedBy: order.id }];
    });
    // Every column travels as one array (model-columns.ts, unnestColumns): the statement's text is the same
    // for any number of orders, so each session prepares and plans it once.
    const quoteColumns = unnestColumns(QUOTE, quotes, 3);
    const intents = unnestColumns(
      INTENT,
      batch.flatMap(({ intents }) => intents),
      3 + quoteColumns.args.length,
    );
    const orders = unnestColumns(
      ORDER,
      batch.map(({ order }) => order),
      3 + quoteColumns.args.length + intents.args.length,
    );
    const sql = `
        WITH consumed AS (
          INSERT INTO quotes (${quoteColumns.names})
          SELECT ${quoteColumns.select} FROM unnest(${quoteColumns.arrays}) AS u (${quoteColumns.names})
          ON CONFLICT (id) DO UPDATE SET consumed_by = excluded.consumed_by WHERE quotes.consumed_by IS NULL
          RETURNING consumed_by AS order_id
        ), new_intents AS (
          -- Each intent carries its order's id ($1), so only the intents of the orders that consumed their quote go in.
          INSERT INTO intents (${intents.names})
          SELECT ${intents.select} FROM unnest($1::text[], ${intents.arrays}) AS u (owner, ${intents.names})
          WHERE u.owner IN (SELECT order_id FROM consumed)
          RETURNING ${INTENT.list}
        ), new_order AS (
          INSERT INTO orders (${orders.names})
          SELECT ${orders.select} FROM unnest(${orders.arrays}) AS u (${orders.names})
          WHERE u.id IN (SELECT order_id FROM consumed)
          RETURNING ${ORDER.list}
        ), announced AS (
          -- The webhook outbox row, in the same statement: one commit (src/domain/webhook-events.ts). Only when
          -- an endpoint wants it ($2): asked here, the usual case (none) costs no row and no trigger call.
          INSERT INTO webhook_events (id, type, order_id, user_id, source_chain, dest_chain, status)
          SELECT ${newIdSql('msg')}, $2, id, user_id, source_chain, dest_chain, 'pending' FROM new_order
          WHERE webhook_event_type_wanted($2)
        )
        SELECT ${qualified(ORDER, 'o')}, ${qualified(INTENT, 's')}, ${qualified(INTENT, 'd')}
        FROM new_order o
        JOIN new_intents s ON s.swap_id = o.source_swap_id
        JOIN new_intents d ON d.swap_id = o.destination_swap_id`;
    const args = [
      batch.flatMap(({ order, intents }) => intents.map(() => order.id)),
      'order.status_changed',
      ...quoteColumns.args,
      ...intents.args,
      ...orders.args,
    ];
    const rows = await write(sql, args, [
      TEXT_LIST,
      TEXT,
      ...quoteColumns.args.map(() => TEXT_LIST),
      ...intents.args.map(() => TEXT_LIST),
      ...orders.args.map(() => TEXT_LIST),
    ]);
    const sourceAt = ORDER.columns.length;
    const destinationAt = sourceAt + INTENT.columns.length;
    const stored = new Map<string, StoredOrder>();
    for (const row of rows) {
      const order = readRow<Order>(ORDER, row);
      stored.set(order.id, { order, intents: [readRow<Intent>(INTENT, row, sourceAt), readRow<Intent>(INTENT, row, destinationAt)] });
    }
    return batch.map(({ order }) => stored.get(order.id as string) ?? null);
  }

  /** One order alone, its refusal translated: a key taken is the domain's KeyTakenError. */
  const orderAlone = (item: NewOrder): Promise<StoredOrder | null> =>
    ordersStatement([item]).then(
      ([stored]) => stored!,
      (error: unknown) => {
        throw violatesUnique(error, [QUOTE_USED_ONCE])
          ? new KeyTakenError('quote')
          : violatesUnique(error, COMMITMENT_USED_ONCE)
            ? new KeyTakenError('commitment')
            : error;
      },
    );

  const createOrders = sharedStatements(ordersStatement, orderAlone);

  return {
    preparedReads: preparedReader !== undefined,

    ordersById: (ids, withIntents) =>
      ids.length === 0
        ? Promise.resolve([])
        : ordersFrom(
            `SELECT ${ORDER.list} FROM orders WHERE id = ANY($1) ORDER BY created_at DESC, id DESC`,
            [ids],
            [TEXT_LIST],
            withIntents,
          ),

    async countOrders(userId) {
      const [row] =
        userId === undefined
          ? await query('SELECT count(*) FROM orders', [], [])
          : await query('SELECT count(*) FROM orders WHERE user_id = $1', [userId], [TEXT]);
      return Number(row![0]);
    },

    ordersInOrder(range) {
      const { sql, args, argTypes } = inOrder(range);
      return ordersFrom(sql, args, argTypes, range.withIntents);
    },

    async userPage(range) {
      const { sql, args, argTypes } = inOrder(range);
      // The user is $3 (inOrder puts it after limit and offset). The count is an InitPlan: computed
      // once for the statement, from the (user_id, created_at, id) index alone.
      const result = await ordersWith(
        sql,
        args,
        argTypes,
        Boolean(range.withIntents),
        `(SELECT count(*) FROM orders WHERE user_id = $3) AS total`,
      );
      return { orders: result.orders, total: result.extra === undefined ? undefined : Number(result.extra) };
    },

    async userPageJson(range, orderJson, now) {
      const { sql, args, argTypes } = inOrder({ ...range, withIntents: false });
      args.push(now.toISOString());
      argTypes.push(TEXT);
      const built = pageJsonSql.get(orderJson) ?? new Map<string, string>();
      pageJsonSql.set(orderJson, built);
      let statement = built.get(sql);
      if (statement === undefined) {
        // An aggregate without GROUP BY: one row, with the total, even for a page past the end (data NULL).
        // The user is $3, as inOrder numbers it (after limit and offset); the clock is the last parameter.
        statement = `SELECT (SELECT count(*) FROM orders WHERE user_id = $3) AS total,
          string_agg(${orderJson(`$${args.length}::timestamptz`)}, ',' ORDER BY o.created_at DESC, o.id DESC) AS data
        FROM (${sql}) o
        ${BOTH_INTENTS}`;
        built.set(sql, statement);
      }
      const [row] = await query(statement, args, argTypes);
      return { total: Number(row![0]), data: (row![1] as string | null) ?? '' };
    },

    intentsBySwapId: (swapIds) =>
      swapIds.length === 0
        ? Promise.resolve([])
        : rowsOf(INTENT, `SELECT ${INTENT.list} FROM intents WHERE swap_id = ANY($1)`, [swapIds], [TEXT_LIST]),

    quoteById,

    signingKey() {
      signingKey ??= readSigningKey().catch((error: unknown) => {
        // Not kept: the next quote asks again (the database may be back).
        signingKey = undefined;
        throw error;
      });
      return signingKey;
    },

    async requestHashOf(orderId) {
      const [row] = await query('SELECT request_hash FROM orders WHERE id = $1', [orderId], [TEXT]);
      return (row?.[0] as string | undefined) ?? null;
    },

    insertOrderConsumingQuote(quote, order, intents) {
      return createOrders({ quote, order, intents });
    },
  };
}

/**
 * Up to two order statements at a time; orders made meanwhile share the next (statement-batches.ts). With quotes
 * signed rather than stored, the order statements are the only create statements, and a second one in flight
 * lets PostgreSQL work on two cores while the first commits (test/bench/README.md). The price: two statements
 * that wait (a lock another instance holds, until statement_timeout) hold up the creates behind them.
 */
const STATEMENTS_IN_FLIGHT = 2;
const ROWS_PER_STATEMENT = 32;

/**
 * Calls that share statements: `statement` writes a batch in one, `alone` one item with its refusal as the
 * caller should see it. One item's fault fails the whole statement (a key taken, a row refused), and so does a
 * deadlock with another statement that reuses the same keys: nothing was written, so each item then runs
 * alone, and only the one at fault is refused. A database that cannot answer fails them all at once.
 */
function sharedStatements<I, O>(statement: (items: readonly I[]) => Promise<O[]>, alone: (item: I) => Promise<O>): (item: I) => Promise<O> {
  return batchedCalls<I, O>(
    async (batch) => {
      if (batch.length === 1) return [await settle(alone(batch[0]!))];
      try {
        return (await statement(batch)).map((value) => ({ ok: true, value }));
      } catch (error) {
        if (isDatabaseUnavailable(error)) throw error;
        return Promise.all(batch.map((item) => settle(alone(item))));
      }
    },
    { inFlight: STATEMENTS_IN_FLIGHT, most: ROWS_PER_STATEMENT },
  );
}

interface NewOrder {
  quote: Quote;
  order: Prisma.OrderCreateManyInput;
  intents: [Prisma.IntentCreateManyInput, Prisma.IntentCreateManyInput];
}
type StoredOrder = { order: Order; intents: [Intent, Intent] };

const settle = <T>(promise: Promise<T>): Promise<Outcome<T>> =>
  promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );

// The keys unique across every month live in order_keys and swap_keys (README, Deployment: Data that grows).
const QUOTE_USED_ONCE = { index: 'order_keys_quote_id_key', fields: ['quote_id'] };
// The swap ids derive from the commitment: any of these indexes refusing the rows means it is reused.
const COMMITMENT_USED_ONCE = [
  { index: 'order_keys_commitment_hash_key', fields: ['commitment_hash'] },
  { index: 'swap_keys_pkey', fields: ['swap_id'] },
  // Within a month: the intents' key in that month's partition (intents_2026_11_pkey, intents_default_pkey).
  { index: /^intents_(\d{4}_\d{2}|default)_pkey$/, fields: ['swap_id', 'created_at'] },
];
