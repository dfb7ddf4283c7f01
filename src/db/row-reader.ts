import type { ArgType, SqlQueryable } from '@prisma/driver-adapter-utils';
import { Prisma, type Intent, type Order } from '../generated/prisma/client.ts';
import { getDatamodel } from '../generated/pothos-types.ts';
import type { QueryListener } from './database.ts';

/**
 * Model rows read through Prisma's driver adapter, below Prisma Client.
 *
 * Why: the list pages are the hottest reads, and Prisma Client spends more CPU per query than the
 * query itself costs. At a million orders, 12 intents by id cost 1.4 ms of CPU through
 * `findMany` and 0.26 ms through the adapter (test/bench: `npm run bench` shows the effect). The
 * rows that come back are the models' own types (Decimal, Date, bigint), built from the same
 * datamodel Prisma generated, so every resolver takes them as it takes Prisma's;
 * test/row-reader.test.ts checks they equal what Prisma Client returns.
 *
 * Writes and everything off the hot path stay on Prisma Client.
 */
export interface RowReader {
  /** Orders whose id is in `ids`, newest first. */
  ordersById(ids: readonly string[]): Promise<Order[]>;
  /** A user's orders, newest first: one page of them. */
  ordersOfUser(userId: string, take: number, skip: number): Promise<Order[]>;
  /** Intents whose swap id is in `swapIds`, in no particular order. */
  intentsBySwapId(swapIds: readonly string[]): Promise<Intent[]>;
}

type ModelName = 'Order' | 'Intent';
type Convert = (value: unknown) => unknown;

/** A model's columns in select order, and how each text value the adapter returns becomes the model's type. */
interface ModelColumns {
  list: string;
  fields: { name: string; convert: Convert }[];
}

const asDecimal: Convert = (v) => new Prisma.Decimal(v as string);
const asDate: Convert = (v) => (v instanceof Date ? v : new Date(v as string));
const asBigInt: Convert = (v) => BigInt(v as string | number | bigint);
const asNumber: Convert = (v) => Number(v);
const asIs: Convert = (v) => v;

const CONVERTERS: Record<string, Convert> = {
  Decimal: asDecimal,
  DateTime: asDate,
  BigInt: asBigInt,
  Int: asNumber,
  String: asIs,
  Boolean: asIs,
};

/** Columns are the fields in snake_case (the schema maps every one that way). */
const columnOf = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function modelColumns(model: ModelName): ModelColumns {
  const fields = getDatamodel()
    .datamodel.models[model]!.fields.filter((f) => f.kind === 'scalar' || f.kind === 'enum')
    .map((f) => {
      const convert = f.kind === 'enum' ? asIs : CONVERTERS[f.type];
      if (!convert) throw new Error(`row reader: no conversion for ${model}.${f.name} (${f.type})`);
      return { name: f.name, convert: f.isRequired ? convert : (v: unknown) => (v === null ? null : convert(v)) };
    });
  return { list: fields.map((f) => columnOf(f.name)).join(', '), fields };
}

const ORDER = modelColumns('Order');
const INTENT = modelColumns('Intent');

const TEXT_LIST: ArgType = { scalarType: 'string', arity: 'list' };
const TEXT: ArgType = { scalarType: 'string', arity: 'scalar' };
const INT: ArgType = { scalarType: 'int', arity: 'scalar' };

export function createRowReader(adapter: SqlQueryable, onQuery?: QueryListener): RowReader {
  async function read<T>(columns: ModelColumns, sql: string, args: unknown[], argTypes: ArgType[]): Promise<T[]> {
    onQuery?.(sql, JSON.stringify(args));
    const result = await adapter.queryRaw({ sql, args, argTypes });
    const { fields } = columns;
    return result.rows.map((row) => {
      const out: Record<string, unknown> = {};
      for (let i = 0; i < fields.length; i++) out[fields[i]!.name] = fields[i]!.convert(row[i]);
      return out as T;
    });
  }

  return {
    ordersById: (ids) =>
      ids.length === 0
        ? Promise.resolve([])
        : read(ORDER, `SELECT ${ORDER.list} FROM orders WHERE id = ANY($1) ORDER BY created_at DESC, id DESC`, [ids], [TEXT_LIST]),
    ordersOfUser: (userId, take, skip) =>
      read(
        ORDER,
        `SELECT ${ORDER.list} FROM orders WHERE user_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`,
        [userId, take, skip],
        [TEXT, INT, INT],
      ),
    intentsBySwapId: (swapIds) =>
      swapIds.length === 0
        ? Promise.resolve([])
        : read(INTENT, `SELECT ${INTENT.list} FROM intents WHERE swap_id = ANY($1)`, [swapIds], [TEXT_LIST]),
  };
}
