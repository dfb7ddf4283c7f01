import type { ArgType } from '@prisma/driver-adapter-utils';
import { snakeCase } from '../domain/input.ts';
import { Prisma } from '../generated/prisma/client.ts';
import { getDatamodel } from '../generated/pothos-types.ts';

/**
 * How a Prisma model's rows travel through the driver adapter without Prisma Client: which column
 * each field is, how a value the adapter returns (text for numerics, times and int8) becomes the
 * model's type, and how a model value is sent as a parameter. Built from the datamodel Prisma
 * generated, so a field added to the schema is read and written here with no further change.
 */

export type ModelName = 'Order' | 'Intent' | 'Quote';

interface Column {
  field: string;
  /** The column, always the field in snake_case: the schema maps every field that way. */
  name: string;
  /** SQL type a parameter is cast to: parameters go as text, the database converts them. */
  cast: string;
  read: (value: unknown) => unknown;
  write: (value: unknown) => string | boolean | null;
}

export interface ModelColumns {
  model: ModelName;
  table: string;
  columns: Column[];
  /** Every column, in field order: what SELECT and RETURNING list. */
  list: string;
  /** readRow for this model: one object literal with every field, compiled from `columns` (compileReader). */
  read: (row: unknown[], offset: number) => Record<string, unknown>;
}

const asDate = (v: unknown) => (v instanceof Date ? v : new Date(v as string));

/** Per scalar type: the cast, the reading and the writing (as text but for booleans). */
const SCALARS: Record<string, Pick<Column, 'cast' | 'read' | 'write'>> = {
  String: { cast: 'text', read: (v) => v, write: (v) => v as string },
  Decimal: {
    cast: 'numeric',
    read: (v) => new Prisma.Decimal(v as string),
    write: (v) => (typeof v === 'object' ? (v as Prisma.Decimal).toFixed() : String(v)),
  },
  DateTime: { cast: 'timestamptz', read: asDate, write: (v) => asDate(v).toISOString() },
  BigInt: { cast: 'int8', read: (v) => BigInt(v as string | number | bigint), write: (v) => String(v) },
  Int: { cast: 'int4', read: (v) => Number(v), write: (v) => String(v) },
  // PGlite takes a boolean parameter only as a JS boolean.
  Boolean: { cast: 'boolean', read: (v) => v, write: (v) => Boolean(v) },
  Json: { cast: 'jsonb', read: (v) => (typeof v === 'string' ? JSON.parse(v) : v), write: (v) => JSON.stringify(v) },
};

const TABLES: Record<ModelName, string> = { Order: 'orders', Intent: 'intents', Quote: 'quotes' };

function build(model: ModelName): ModelColumns {
  const columns = getDatamodel()
    .datamodel.models[model]!.fields.filter((f) => f.kind === 'scalar' || f.kind === 'enum')
    .map((f): Column => {
      const scalar =
        f.kind === 'enum' ? { cast: `"${f.type}"`, read: SCALARS.String!.read, write: SCALARS.String!.write } : SCALARS[f.type];
      if (!scalar) throw new Error(`model columns: ${model}.${f.name} has type ${f.type}, which has no conversion here`);
      const { read, write } = scalar;
      return {
        field: f.name,
        name: snakeCase(f.name),
        cast: scalar.cast,
        read: f.isRequired ? read : (v) => (v === null ? null : read(v)),
        write: (v) => (v === null || v === undefined ? null : write(v)),
      };
    });
  return { model, table: TABLES[model], columns, list: columns.map((c) => c.name).join(', '), read: compileReader(columns) };
}

/**
 * A function that builds the model's object from a result row in one object literal: every row of a model
 * then has the same shape from the start, where adding the fields one by one walks V8 through a shape per
 * field (a page reads 60 rows of 24 to 33 fields). The literal is generated from `columns`, so it follows
 * the schema like everything here; text columns are copied as they are, the others converted.
 */
function compileReader(columns: Column[]): (row: unknown[], offset: number) => Record<string, unknown> {
  const fields = columns.map((c, i) => {
    const value = `row[offset + ${i}]`;
    // Text and enum columns arrive as the strings they are.
    const asIs = c.cast === 'text' || c.cast.startsWith('"');
    return `${JSON.stringify(c.field)}: ${asIs ? value : `read[${i}](${value})`}`;
  });
  const build = new Function('read', `return (row, offset) => ({ ${fields.join(', ')} });`) as (
    read: Column['read'][],
  ) => (row: unknown[], offset: number) => Record<string, unknown>;
  return build(columns.map((c) => c.read));
}

export const ORDER = build('Order');
export const INTENT = build('Intent');
export const QUOTE = build('Quote');

/** The model row held in `row` from position `offset` on (several models can share a result row). */
export function readRow<T>(model: ModelColumns, row: unknown[], offset = 0): T {
  return model.read(row, offset) as T;
}

/** `alias.col, alias.col, ...` for a SELECT over a model's columns. */
export const qualified = (model: ModelColumns, alias: string) => model.columns.map((c) => `${alias}.${c.name}`).join(', ');

/**
 * Any number of `rows` (all with the same fields) as columns of text[] parameters, from `firstParam` on, each
 * cast in SQL: the same encoding for pg and PGlite, and one statement text whatever the number of rows.
 * `arrays` are the `$n::text[]` parameters in column order (for `unnest(...) AS u(<names>)`), `select` the
 * columns read back from `u`, cast to their types.
 */
export function unnestColumns(model: ModelColumns, rows: readonly Record<string, unknown>[], firstParam = 1) {
  const present = model.columns.filter((c) => rows[0]![c.field] !== undefined);
  return {
    names: present.map((c) => c.name).join(', '),
    arrays: present.map((_, i) => `$${firstParam + i}::text[]`).join(', '),
    select: present.map((c) => `u.${c.name}::${c.cast}`).join(', '),
    args: present.map((c) =>
      rows.map((row) => {
        const value = c.write(row[c.field]);
        return value === null ? null : String(value);
      }),
    ),
  };
}

/**
 * One statement that inserts any number of `rows` (all with the same fields), `INSERT ... SELECT FROM
 * unnest(...)`. For bulk loads (the seed), where a tuple per row would run out of parameters.
 */
export function unnestInsert(model: ModelColumns, rows: Record<string, unknown>[]): { sql: string; args: (string | null)[][] } {
  const { names, arrays, select, args } = unnestColumns(model, rows);
  return { sql: `INSERT INTO ${model.table} (${names}) SELECT ${select} FROM unnest(${arrays}) AS u(${names})`, args };
}

export const TEXT: ArgType = { scalarType: 'string', arity: 'scalar' };
export const TEXT_LIST: ArgType = { scalarType: 'string', arity: 'list' };
export const INT: ArgType = { scalarType: 'int', arity: 'scalar' };
