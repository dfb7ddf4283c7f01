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
 * Only the list pages and the quote-to-order path are here; everything else stays on Prisma Client.
 */
export interface RowReads {
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
 * merge or hash join on `created_at` over whole partitions (README, Performance).
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
 * The row store over a driver adapter (its writes, and its reads unless `reader` is given: on PostgreSQL
 * the reads skip the adapter, pg-reader.ts).
 */
export function createRowStore(adapter: SqlQueryable, onQuery?: QueryListener, reader: RowReader = adapterReader(adapter)): RowStore {
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

  /** The quotes this instance stored and has not seen consumed, oldest first (quoteToConsume). */
  const storedQuotes = new Map<string, Quote>();
  const quoteById = async (id: string) => {
    const [quote] = await rowsOf<Quote>(QUOTE, `SELECT ${QUOTE.list} FROM quotes WHERE id = $1`, [id], [TEXT]);
    return quote ?? null;
  };

  /**
   * Orders with their intents, each consuming its quote, in one statement (one commit, no lock held across
   * round trips): an order whose quote is no longer unconsumed is not written, and comes back null. Of two
   * orders on one quote in the same statement, the UPDATE gives the quote to one (PostgreSQL updates a row
   * once per statement); the other comes back null, as if it had lost the race to another statement.
   */
  async function ordersStatement(batch: readonly NewOrder[]): Promise<(StoredOrder | null)[]> {
    // Every column travels as one array (model-columns.ts, unnestColumns): the statement's text is the same
    // for any number of orders, so each session prepares and plans it once.
    const intents = unnestColumns(
      INTENT,
      batch.flatMap(({ intents }) => intents),
      5,
    );
    const orders = unnestColumns(
      ORDER,
      batch.map(({ order }) => order),
      5 + intents.args.length,
    );
    const sql = `
        WITH input AS (SELECT * FROM unnest($1::text[], $2::text[]) AS i (order_id, quote_id)),
        consumed AS (
          UPDATE quotes q SET consumed_by = input.order_id FROM input
          WHERE q.id = input.quote_id AND q.consumed_by IS NULL
          RETURNING q.consumed_by AS order_id
        ), new_intents AS (
          -- Each intent carries its order's id ($3), so only the intents of the orders that consumed their quote go in.
          INSERT INTO intents (${intents.names})
          SELECT ${intents.select} FROM unnest($3::text[], ${intents.arrays}) AS u (owner, ${intents.names})
          WHERE u.owner IN (SELECT order_id FROM consumed)
          RETURNING ${INTENT.list}
        ), new_order AS (
          INSERT INTO orders (${orders.names})
          SELECT ${orders.select} FROM unnest(${orders.arrays}) AS u (${orders.names})
          WHERE u.id IN (SELECT order_id FROM consumed)
          RETURNING ${ORDER.list}
        ), announced AS (
          -- The webhook outbox row, in the same statement: one commit (src/domain/webhook-events.ts). Only when
          -- an endpoint wants it ($4): asked here, the usual case (none) costs no row and no trigger call.
          INSERT INTO webhook_events (id, type, order_id, user_id, source_chain, dest_chain, status)
          SELECT ${newIdSql('msg')}, $4, id, user_id, source_chain, dest_chain, 'pending' FROM new_order
          WHERE webhook_event_type_wanted($4)
        )
        SELECT ${qualified(ORDER, 'o')}, ${qualified(INTENT, 's')}, ${qualified(INTENT, 'd')}
        FROM new_order o
        JOIN new_intents s ON s.swap_id = o.source_swap_id
        JOIN new_intents d ON d.swap_id = o.destination_swap_id`;
    const args = [
      batch.map(({ order }) => order.id),
      batch.map(({ order }) => order.quoteId),
      batch.flatMap(({ order, intents }) => intents.map(() => order.id)),
      'order.status_changed',
      ...intents.args,
      ...orders.args,
    ];
    const rows = await write(sql, args, [
      TEXT_LIST,
      TEXT_LIST,
      TEXT_LIST,
      TEXT,
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

  /** Quotes, in one statement, as stored (by id: RETURNING promises no order). */
  async function quotesStatement(batch: readonly Prisma.QuoteCreateInput[]): Promise<Quote[]> {
    const quotes = unnestColumns(QUOTE, batch as readonly Record<string, unknown>[]);
    const sql = `INSERT INTO quotes (${quotes.names}) SELECT ${quotes.select} FROM unnest(${quotes.arrays}) AS u (${quotes.names})
      RETURNING ${QUOTE.list}`;
    const rows = await write(
      sql,
      quotes.args,
      quotes.args.map(() => TEXT_LIST),
    );
    const stored = new Map(rows.map((row) => readRow<Quote>(QUOTE, row)).map((quote) => [quote.id, quote]));
    return batch.map((quote) => {
      const found = stored.get(quote.id as string);
      if (!found) throw new Error(`quote ${quote.id} was not returned by its insert`);
      return found;
    });
  }

  const insertQuotes = sharedStatements(quotesStatement, async (quote: Prisma.QuoteCreateInput) => (await quotesStatement([quote]))[0]!);

  return {
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

    quoteToConsume(id) {
      const stored = storedQuotes.get(id);
      return stored ? Promise.resolve(stored) : quoteById(id);
    },

    async requestHashOf(orderId) {
      const [row] = await query('SELECT request_hash FROM orders WHERE id = $1', [orderId], [TEXT]);
      return (row?.[0] as string | undefined) ?? null;
    },

    async insertQuote(quote) {
      const stored = await insertQuotes(quote);
      // Bounded: the oldest go first (a quote not found here is read, as any other instance's).
      if (storedQuotes.size >= STORED_QUOTES) storedQuotes.delete(storedQuotes.keys().next().value!);
      storedQuotes.set(stored.id, stored);
      // A copy: the caller's object may change, this one must stay as stored.
      return { ...stored };
    },

    insertOrderConsumingQuote(order, intents) {
      // Consumed now, or by someone else already (no row): either way, from here on it is read.
      storedQuotes.delete(order.quoteId);
      return createOrders({ order, intents });
    },
  };
}

/**
 * One statement of each kind at a time; rows made meanwhile share the next (statement-batches.ts). One fuller
 * statement costs both sides less per order than two half-full ones side by side (test/bench/README.md). The
 * price: a statement that waits (a lock another instance holds, until statement_timeout) holds up its kind.
 */
const STATEMENTS_IN_FLIGHT = 1;
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
  order: Prisma.OrderCreateManyInput;
  intents: [Prisma.IntentCreateManyInput, Prisma.IntentCreateManyInput];
}
type StoredOrder = { order: Order; intents: [Intent, Intent] };

const settle = <T>(promise: Promise<T>): Promise<Outcome<T>> =>
  promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );

/** How many stored quotes an instance keeps for the orders on them (quoteToConsume). */
const STORED_QUOTES = 10_000;

// The keys unique across every month live in order_keys and swap_keys (README, Deployment: Data that grows).
const QUOTE_USED_ONCE = { index: 'order_keys_quote_id_key', fields: ['quote_id'] };
// The swap ids derive from the commitment: any of these indexes refusing the rows means it is reused.
const COMMITMENT_USED_ONCE = [
  { index: 'order_keys_commitment_hash_key', fields: ['commitment_hash'] },
  { index: 'swap_keys_pkey', fields: ['swap_id'] },
  // Within a month: the intents' key in that month's partition (intents_2026_11_pkey, intents_default_pkey).
  { index: /^intents_(\d{4}_\d{2}|default)_pkey$/, fields: ['swap_id', 'created_at'] },
];
