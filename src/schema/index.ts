import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { builder } from './builder.ts';
import './escrow.ts';
import './order.ts';
import './quote.ts';
import './registry.ts';
import './relayer.ts';
import './stats.ts';
import './subscriptions.ts';
import './webhooks.ts';

export const schema: GraphQLSchema = builder.toSchema();

/** The SDL checked in as schema.graphql: sorted, so diffs show real changes only. */
export function printSortedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
