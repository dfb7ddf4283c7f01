import type { DocumentNode } from 'graphql';
import { INTENT, type ModelColumns, ORDER, QUOTE } from '../db/model-columns.ts';
import { statusAt } from '../domain/status/rule.ts';
import type { Intent, Order, Quote } from '../generated/prisma/client.ts';
import { documents } from './documents.ts';
import { fieldsOf, fragmentFields, ORDER_FIELD_COLUMNS } from './rendered-pages.ts';

/**
 * The REST answers of the two creates, rendered from the quote as signed and the order's rows as its write
 * returned (README, REST and GraphQL: How REST runs): the JSON text the createQuote and createOrder documents
 * would give, without running them. Creates are the hottest writes, and running the document would make most
 * of a create's own CPU: its execution, its result objects and their serialisation.
 *
 * As for the rendered pages (rendered-pages.ts), nothing about the shape is written twice: the keys and their
 * order come from the REST documents' fragments (QuoteFields, OrderFields, IntentFields), each value's text
 * from its column's type, printed as the GraphQL types print it, and the status from the status rule.
 * test/rendered-rows.test.ts holds the bytes against the documents' answers for the same rows.
 */

type Row = Record<string, unknown>;
/** What a value may need besides its row: the clock (an order's status), and an order's intents. */
interface Around {
  now: Date;
  source?: Row;
  destination?: Row;
}
type Render = (row: Row, around: Around) => string;

/** A column's value as the GraphQL types print it: decimals as plain strings, times `YYYY-MM-DDTHH:MM:SSZ`. */
function columnJson(model: ModelColumns, field: string, column = field): (row: Row) => string {
  const found = model.columns.find((c) => c.field === column);
  if (!found) throw new Error(`rendered rows: ${model.model}.${field} is not a column; render it explicitly here`);
  const print: (value: NonNullable<unknown>) => string =
    found.cast === 'numeric'
      ? (value) => `"${(value as { toFixed(): string }).toFixed()}"`
      : found.cast === 'timestamptz'
        ? (value) => `"${(value as Date).toISOString().slice(0, 19)}Z"`
        : found.cast === 'int8' || found.cast === 'int4' || found.cast === 'boolean'
          ? (value) => String(value)
          : (value) => JSON.stringify(value);
  return (row) => {
    const value = row[column];
    return value === null || value === undefined ? 'null' : print(value);
  };
}

const objectJson = (entries: [key: string, value: Render][]): Render => {
  const keys = entries.map(([key]) => JSON.stringify(key));
  return (row, around) => `{${entries.map(([, value], i) => `${keys[i]}:${value(row, around)}`).join(',')}}`;
};

/** The quote's legs: `source { asset amount }` is the sourceAsset and sourceAmount columns. */
const QUOTE_LEGS: Record<string, string> = { source: 'source', destination: 'dest' };
const QUOTE_FIELD_COLUMNS: Record<string, string> = { quoteId: 'id' };

function quoteJson(document: DocumentNode, fragmentName: string): (quote: Quote) => string {
  const { fields, fragments } = fragmentFields(document, fragmentName);
  const render = objectJson(
    fields.map(([key, field, selection]): [string, Render] => {
      const leg = QUOTE_LEGS[field];
      if (leg) {
        const legFields = fieldsOf(selection!, fragments).map(([k, f]): [string, Render] => {
          const column = `${leg}${f[0]!.toUpperCase()}${f.slice(1)}`;
          return [k, columnJson(QUOTE, f, column)];
        });
        return [key, objectJson(legFields)];
      }
      return [key, columnJson(QUOTE, field, QUOTE_FIELD_COLUMNS[field])];
    }),
  );
  // A quote's fields do not depend on the clock.
  const around = { now: new Date(Number.NaN) };
  return (quote) => render(quote as unknown as Row, around);
}

const SIDE_OF_FIELD: Record<string, 'source' | 'destination'> = { sourceIntent: 'source', destinationIntent: 'destination' };

function orderJson(document: DocumentNode, fragmentName: string): (order: Order, intents: readonly Intent[], now: Date) => string {
  const { fields, fragments } = fragmentFields(document, fragmentName);
  const render = objectJson(
    fields.map(([key, field, selection]): [string, Render] => {
      if (field === 'status') return [key, (row, { now }) => `"${statusAt(row as unknown as Order, now)}"`];
      const side = SIDE_OF_FIELD[field];
      if (side) {
        const intent = objectJson(fieldsOf(selection!, fragments).map(([k, f]): [string, Render] => [k, columnJson(INTENT, f)]));
        return [
          key,
          (row, around) => {
            const sideRow = around[side];
            if (!sideRow) throw new Error(`rendered rows: order ${String(row.id)} came without its ${side} intent`);
            return intent(sideRow, around);
          },
        ];
      }
      return [key, columnJson(ORDER, field, ORDER_FIELD_COLUMNS[field])];
    }),
  );
  const intentOf = (intents: readonly Intent[], swapId: string) =>
    intents.find((intent) => intent.swapId === swapId) as unknown as Row | undefined;
  return (order, intents, now) =>
    render(order as unknown as Row, {
      now,
      source: intentOf(intents, order.sourceSwapId),
      destination: intentOf(intents, order.destinationSwapId),
    });
}

/** A quote as `POST /quotes` answers it (the createQuote document's QuoteFields), as JSON text. */
export const restQuoteJson = quoteJson(documents.createQuote, 'QuoteFields');

/** An order with its intents as `POST /orders` answers it (the createOrder document's OrderFields), as JSON text, at `now`. */
export const restCreatedOrderJson = orderJson(documents.createOrder, 'OrderFields');
