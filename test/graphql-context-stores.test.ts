import { describe, expect, it } from 'vitest';
import type { RowStore } from '../src/db/row-store.ts';
import type { DomainDeps } from '../src/domain/deps.ts';
import type { PrismaClient } from '../src/generated/prisma/client.ts';
import type { GraphQLContext } from '../src/schema/context.ts';

/** The fields of T typed as a `Door` (or optionally one). */
type FieldsOf<T, Door> = { [K in keyof T]-?: NonNullable<T[K]> extends Door ? K : never }[keyof T];

// Resolvers and the domain reach the data through named stores only (README, Reads): a field typed as Prisma
// Client or as the whole row store makes these `never` checks fail `npm run typecheck`.
const contextDoors: [FieldsOf<GraphQLContext, PrismaClient> | FieldsOf<GraphQLContext, RowStore>] extends [never]
  ? 'stores only'
  : 'a loose client' = 'stores only';
const domainDoors: [FieldsOf<DomainDeps, PrismaClient> | FieldsOf<DomainDeps, RowStore>] extends [never]
  ? 'stores only'
  : 'a loose client' = 'stores only';

describe('the GraphQL context and the domain', () => {
  it('carry stores, not Prisma Client or the row store', () => {
    expect([contextDoors, domainDoors]).toEqual(['stores only', 'stores only']);
  });
});
