import { getIntrospectionQuery } from 'graphql';
import { describe, expect } from 'vitest';
import { it } from './support/app.ts';

const aliasedSchemas = (n: number) =>
  `{ ${Array.from({ length: n }, (_, i) => `s${i}: __schema { types { name fields { name } } }`).join(' ')} }`;

/**
 * Introspection is counted by the cost rule at what it weighs (src/http/graphql-cost.ts): a whole
 * schema per `__schema`, so GraphiQL's introspection query runs, and fifteen aliased copies do not.
 */
describe('introspection under the cost limit', () => {
  it("runs GraphiQL's standard introspection query", async ({ t }) => {
    const reply = await t.gql(getIntrospectionQuery());
    expect(reply.errors).toBeUndefined();
    expect(reply.data.__schema.types.length).toBeGreaterThan(10);
  });

  it('runs two aliased __schema queries', async ({ t }) => {
    const reply = await t.gql(aliasedSchemas(2));
    expect(reply.errors).toBeUndefined();
    expect(reply.data.s1.types.length).toBeGreaterThan(10);
  });

  it('refuses fifteen aliased __schema queries with the cost error', async ({ t }) => {
    const reply = await t.gql(aliasedSchemas(15));
    expect(reply.data).toBeUndefined();
    expect(reply.errors?.map((e) => e.message)).toEqual([expect.stringMatching(/^Query cost limit of 25000 exceeded, found \d+\.$/)]);
  });
});
