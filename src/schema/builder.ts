import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import { GraphQLScalarType } from 'graphql';
import { DateTimeResolver, JSONObjectResolver, SafeIntResolver } from 'graphql-scalars';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type PrismaTypes from '../generated/pothos-types.ts';
import { getDatamodel } from '../generated/pothos-types.ts';
import type { GraphQLContext } from './context.ts';

/**
 * graphql-scalars' DateTime, printed the way the whole API prints time: UTC, whole seconds,
 * `YYYY-MM-DDTHH:MM:SSZ`, as every timestamp of the API is.
 */
const DateTime = new GraphQLScalarType({
  ...DateTimeResolver.toConfig(),
  description: 'UTC timestamp in whole seconds, `YYYY-MM-DDTHH:MM:SSZ`.',
  serialize(value) {
    // Columns arrive as Dates: skip the scalar's parsing of other inputs (a hot path: every time field of every order and intent).
    const date = value instanceof Date && !Number.isNaN(value.getTime()) ? value : (DateTimeResolver.serialize(value) as Date);
    return secondsText(date);
  },
});

const TWO_DIGITS = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));

/** `YYYY-MM-DDTHH:MM:SSZ`: toISOString() cut to seconds, built from the parts (cheaper, and run for every time of every order). */
export function secondsText(date: Date): string {
  const year = date.getUTCFullYear();
  if (year < 1000 || year > 9999) return `${date.toISOString().slice(0, 19)}Z`;
  return `${year}-${TWO_DIGITS[date.getUTCMonth() + 1]}-${TWO_DIGITS[date.getUTCDate()]}T${TWO_DIGITS[date.getUTCHours()]}:${TWO_DIGITS[date.getUTCMinutes()]}:${TWO_DIGITS[date.getUTCSeconds()]}Z`;
}

export const builder = new SchemaBuilder<{
  PrismaTypes: PrismaTypes;
  Context: GraphQLContext;
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    JSONObject: { Input: Record<string, unknown>; Output: Record<string, unknown> };
    SafeInt: { Input: number; Output: number | bigint };
  };
}>({
  plugins: [PrismaPlugin, RelayPlugin],
  defaultFieldNullability: false,
  prisma: {
    // The plugin's relation loading and batching read orders: it gets its client from the orders store.
    client: (ctx) => ctx.orders.client as PrismaClient,
    dmmf: getDatamodel(),
    filterConnectionTotalCount: true,
    // A resolver that forgets to spread `query` loses the selection optimisation: make it loud in tests.
    onUnusedQuery: process.env.NODE_ENV === 'production' ? null : 'error',
  },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    pageInfoTypeOptions: { description: 'Where a connection page sits in the whole list.' },
    hasNextPageFieldOptions: { description: 'More orders follow (older, after endCursor).' },
    hasPreviousPageFieldOptions: { description: 'More orders precede (newer, before startCursor).' },
    startCursorFieldOptions: { description: 'Cursor of the first edge; pass as `before` for the previous page.' },
    endCursorFieldOptions: { description: 'Cursor of the last edge; pass as `after` for the next page.' },
    cursorFieldOptions: { description: 'Opaque position of this edge in the list.' },
    nodeFieldOptions: { description: 'The order.' },
    edgesFieldOptions: { description: 'The orders of this page, each with its cursor.' },
    pageInfoFieldOptions: { description: 'Cursors and whether more pages exist.' },
    firstArgOptions: { description: 'Forward: this many orders after `after` (default 20, at most 100).' },
    afterArgOptions: { description: 'Forward: start after this cursor (an endCursor).' },
    lastArgOptions: { description: 'Backward: this many orders before `before` (at most 100).' },
    beforeArgOptions: { description: 'Backward: end before this cursor (a startCursor).' },
  },
});

builder.addScalarType('DateTime', DateTime);
builder.addScalarType('JSONObject', JSONObjectResolver);
builder.addScalarType(
  'SafeInt',
  new GraphQLScalarType({
    ...SafeIntResolver.toConfig(),
    // Block numbers and UNIX times are BigInt columns; they fit in 53 bits for any real chain.
    serialize: (value) => SafeIntResolver.serialize(typeof value === 'bigint' ? Number(value) : value),
  }),
);

builder.queryType({ description: 'Reads: orders, quotes, claims, the registry and statistics.' });
builder.mutationType({ description: 'Writes: quotes, orders, escrow events from watchers, relayer claims.' });
