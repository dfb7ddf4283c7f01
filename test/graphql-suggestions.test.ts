import { describe, expect } from 'vitest';
import { createTestApp, it as appTest, type TestApp } from './support/app.ts';
import { TEST_DB } from './support/database.ts';

// biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from its first argument's pattern; this one has none
const it = appTest.extend('production', { scope: 'file' }, async ({}, { onCleanup }) => {
  const production = await createTestApp({ env: { NODE_ENV: 'production' } });
  onCleanup(() => production.close());
  return production;
});

const errorOf = async (app: TestApp, query: string, variables?: Record<string, unknown>) =>
  (await app.gql(query, variables)).errors?.[0]?.message ?? '';

/** "Did you mean" is hidden in production for enum values as for fields (src/http/graphql-limits.ts). */
describe.skipIf(TEST_DB !== 'pglite')('suggestions', () => {
  it('hides enum value suggestions in production, in literals and in variables', async ({ t, production }) => {
    const literal = '{ orders(filter: { status: [PENDNG] }) { total } }';
    const variable = ['query($s: [OrderStatus!]) { orders(filter: { status: $s }) { total } }', { s: ['PENDNG'] }] as const;
    expect(await errorOf(t, literal)).toMatch(/Did you mean/);
    expect(await errorOf(t, variable[0], variable[1])).toMatch(/Did you mean/);
    for (const hidden of [await errorOf(production, literal), await errorOf(production, variable[0], variable[1])]) {
      expect(hidden).toMatch(/PENDNG/);
      expect(hidden).not.toMatch(/Did you mean|PENDING/);
    }
  }, 90_000);
});
