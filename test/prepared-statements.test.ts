import { describe, expect, test } from 'vitest';
import { openPostgres } from '../src/db/database.ts';
import { statementNamer } from '../src/db/prepared-statements.ts';
import { TEST_DB, cloneTemplate } from './support/database.ts';

describe('statement names', () => {
  test('one name per statement text, the same each time, and none past the limit', () => {
    const name = statementNamer(2);
    const first = name({ sql: 'SELECT 1' });
    expect(first).toMatch(/^s_[0-9a-f]{24}$/);
    expect(name({ sql: 'SELECT 1' })).toBe(first);
    expect(name({ sql: 'SELECT 2' })).not.toBe(first);
    // A third text would prepare one more statement on every connection: it runs unnamed instead.
    expect(name({ sql: 'SELECT 3' })).toBeUndefined();
    expect(name({ sql: 'SELECT 1' })).toBe(first);
  });
});

// PGlite has one session and no pool: prepared statements are a PostgreSQL matter.
describe.runIf(TEST_DB === 'postgres')('prepared statements on PostgreSQL', () => {
  /** The statements the one pooled connection holds prepared after reading a user's page twice. */
  async function preparedAfterReads(preparedStatements: boolean): Promise<number> {
    const database = await cloneTemplate();
    const db = await openPostgres({ url: database.url, poolSize: 1, preparedStatements });
    try {
      const set = { where: { userId: 'someone' }, now: new Date(), userId: 'someone' };
      for (let i = 0; i < 2; i++) await db.orders.offsetPage(set, { page: 1, limit: 20 }, { withIntents: true }).rows();
      const [row] = await db.prisma.$queryRaw<[{ n: number }]>`SELECT count(*)::int AS n FROM pg_prepared_statements`;
      return row.n;
    } finally {
      await db.close();
      await database.drop();
    }
  }

  test('each connection prepares what it runs, unless turned off', async () => {
    expect(await preparedAfterReads(true)).toBeGreaterThan(0);
    expect(await preparedAfterReads(false)).toBe(0);
  });
});
