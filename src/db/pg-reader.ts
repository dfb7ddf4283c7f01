import pg from 'pg';
import type { RowReader } from './row-store.ts';

/**
 * The row store's reads straight through a pg pool on PostgreSQL (README, How it is built): the rows come
 * back as arrays with pg's own parsing, so no driver-adapter normalisation runs between the socket and
 * model-columns.ts. The pool carries the statement and query timeouts (database.ts), and a pg error is
 * what isDatabaseUnavailable() reads for the 503. With `name`, each connection prepares a statement once
 * (prepared-statements.ts).
 */
export function pgRowReader(pool: pg.Pool, name?: (query: { sql: string }) => string): RowReader {
  return async (sql, args) =>
    (await pool.query({ name: name?.({ sql }), text: sql, values: args, rowMode: 'array', types: ROW_TYPES })).rows;
}

const TIMESTAMPTZ = 1184;
const INT8 = 20;
const NUMERIC = 1700;
const asText = (value: string) => value;
const pgTimestamptz = pg.types.getTypeParser(TIMESTAMPTZ, 'text') as (value: string) => Date;

/**
 * What each column becomes: times as Dates (parseTimestamptz), int8 and numeric as their text (model-columns.ts
 * makes them bigint and Decimal), everything else as pg parses it. Per query, so pg's global parsers, which
 * others may set, do not change what the row store reads.
 */
const ROW_TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (format !== 'binary') {
      if (oid === TIMESTAMPTZ) return parseTimestamptz;
      if (oid === INT8 || oid === NUMERIC) return asText;
    }
    return pg.types.getTypeParser(oid, format as 'text');
  },
} as pg.CustomTypesConfig;

/** Digits of `text` from `at`, `length` of them, as a number; NaN when one is not a digit. */
function digits(text: string, at: number, length: number): number {
  let value = 0;
  for (let i = at; i < at + length; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return Number.NaN;
    value = value * 10 + d;
  }
  return value;
}

/**
 * A timestamptz as PostgreSQL prints it. The columns hold whole seconds (Timestamptz(0)) and a session in
 * UTC or a whole-hour zone prints `2026-11-23 10:00:00+00`, read here by position; anything else (fractions,
 * zones with minutes, years before 1000 or BC, infinity) goes to pg's own parser.
 */
export function parseTimestamptz(text: string): Date {
  if (text.length === 22 && text.charCodeAt(10) === 32) {
    const sign = text.charCodeAt(19);
    const year = digits(text, 0, 4);
    if ((sign === 43 || sign === 45) && year >= 1000) {
      const offset = digits(text, 20, 2) * (sign === 45 ? -1 : 1);
      const ms = Date.UTC(
        year,
        digits(text, 5, 2) - 1,
        digits(text, 8, 2),
        digits(text, 11, 2) - offset,
        digits(text, 14, 2),
        digits(text, 17, 2),
      );
      if (!Number.isNaN(ms)) return new Date(ms);
    }
  }
  return pgTimestamptz(text);
}
