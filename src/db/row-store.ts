import type { ArgType, SqlQueryable } from '@prisma/driver-adapter-utils';
import type { Intent, Order, Prisma, Quote } from '../generated/prisma/client.ts';
import type { QueryListener } from './database.ts';
import { newId } from '../webhooks/outbox.ts';
import { INT, INTENT, ORDER, QUOTE, TEXT, TEXT_LIST, insertValues, qualified, readRow, type ModelColumns } from './model-columns.ts';

/**
 * The hot paths' SQL, sent through Prisma's driver adapter below Prisma Client.
 *
 * Why: Prisma Client spends more CPU per query than these queries cost. At a million orders, 12
 * intents by id cost 1.4 ms of CPU through `findMany` and 0.26 ms through the adapter, and each
 * write through Prisma Client runs its query compiler (WebAssembly) again. The rows that come
 * back are the models' own types (Decimal, Date, bigint), so every resolver takes them as it takes
 * Prisma's; test/row-store.test.ts checks they equal what Prisma Client returns.
 *
 * Only the list pages and the quote-to-order path are here; everything else stays on Prisma Client.
 */
export interface RowStore {
  /** Orders whose id is in `ids`, newest first. */
  ordersById(ids: readonly string[]): Promise<Order[]>;
  /** A user's orders, newest first: one page of them. */
  ordersOfUser(userId: string, take: number, skip: number): Promise<Order[]>;
  /** Intents whose swap id is in `swapIds`, in no particular order. */
  intentsBySwapId(swapIds: readonly string[]): Promise<Intent[]>;
  quoteById(id: string): Promise<Quote | null>;
  insertQuote(quote: Prisma.QuoteCreateInput): Promise<Quote>;
  /**
   * Consumes the quote and stores the order with both intents, in one statement: one commit, and
   * no lock held across round trips. Null when the quote was no longer unconsumed; nothing is
   * written then.
   */
  insertOrderConsumingQuote(
    order: Prisma.OrderCreateManyInput,
    intents: [Prisma.IntentCreateManyInput, Prisma.IntentCreateManyInput],
  ): Promise<{ order: Order; intents: [Intent, Intent] } | null>;
}

export function createRowStore(adapter: SqlQueryable, onQuery?: QueryListener): RowStore {
  async function query(sql: string, args: unknown[], argTypes: ArgType[]): Promise<unknown[][]> {
    onQuery?.(sql, JSON.stringify(args));
    return (await adapter.queryRaw({ sql, args, argTypes })).rows;
  }
  const rowsOf = async <T>(model: ModelColumns, sql: string, args: unknown[], argTypes: ArgType[]) =>
    (await query(sql, args, argTypes)).map((row) => readRow<T>(model, row));
  const allText = (args: unknown[]) => args.map(() => TEXT);

  return {
    ordersById: (ids) =>
      ids.length === 0
        ? Promise.resolve([])
        : rowsOf(ORDER, `SELECT ${ORDER.list} FROM orders WHERE id = ANY($1) ORDER BY created_at DESC, id DESC`, [ids], [TEXT_LIST]),

    ordersOfUser: (userId, take, skip) =>
      rowsOf(
        ORDER,
        `SELECT ${ORDER.list} FROM orders WHERE user_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`,
        [userId, take, skip],
        [TEXT, INT, INT],
      ),

    intentsBySwapId: (swapIds) =>
      swapIds.length === 0
        ? Promise.resolve([])
        : rowsOf(INTENT, `SELECT ${INTENT.list} FROM intents WHERE swap_id = ANY($1)`, [swapIds], [TEXT_LIST]),

    async quoteById(id) {
      const [quote] = await rowsOf<Quote>(QUOTE, `SELECT ${QUOTE.list} FROM quotes WHERE id = $1`, [id], [TEXT]);
      return quote ?? null;
    },

    async insertQuote(quote) {
      const values = insertValues(QUOTE, [quote]);
      const sql = `INSERT INTO quotes (${values.columns}) VALUES ${values.tuples[0]} RETURNING ${QUOTE.list}`;
      const [row] = await rowsOf<Quote>(QUOTE, sql, values.args, allText(values.args));
      return row!;
    },

    async insertOrderConsumingQuote(order, intents) {
      const intentValues = insertValues(INTENT, intents);
      const orderValues = insertValues(ORDER, [order], intentValues.args.length + 1);
      const consumer = intentValues.args.length + orderValues.args.length + 1;
      // The order's own quote_id is the quote consumed; its id is the consumer.
      const sql = `
        WITH consumed AS (
          UPDATE quotes SET consumed_by = $${consumer} WHERE id = $${consumer + 1} AND consumed_by IS NULL RETURNING id
        ), new_intents AS (
          INSERT INTO intents (${intentValues.columns})
          SELECT * FROM (VALUES ${intentValues.tuples.join(', ')}) AS v WHERE EXISTS (SELECT FROM consumed)
          RETURNING ${INTENT.list}
        ), new_order AS (
          INSERT INTO orders (${orderValues.columns})
          SELECT * FROM (VALUES ${orderValues.tuples[0]}) AS v WHERE EXISTS (SELECT FROM consumed)
          RETURNING ${ORDER.list}
        ), announced AS (
          -- The webhook outbox row, in the same statement: one commit (src/webhooks/outbox.ts).
          INSERT INTO webhook_events (id, type, order_id, user_id, source_chain, dest_chain, status)
          SELECT $${consumer + 2}, 'order.status_changed', id, user_id, source_chain, dest_chain, 'pending' FROM new_order
        )
        SELECT ${qualified(ORDER, 'o')}, ${qualified(INTENT, 's')}, ${qualified(INTENT, 'd')}
        FROM new_order o
        JOIN new_intents s ON s.swap_id = o.source_swap_id
        JOIN new_intents d ON d.swap_id = o.destination_swap_id`;
      const args = [...intentValues.args, ...orderValues.args, order.id, order.quoteId, newId('msg')];
      const [row] = await query(sql, args, allText(args));
      if (!row) return null;
      const sourceAt = ORDER.columns.length;
      const destinationAt = sourceAt + INTENT.columns.length;
      return {
        order: readRow<Order>(ORDER, row),
        intents: [readRow<Intent>(INTENT, row, sourceAt), readRow<Intent>(INTENT, row, destinationAt)],
      };
    },
  };
}
