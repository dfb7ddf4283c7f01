import { inject } from 'vitest';
import { openPglite, openPostgres, type Database, type PostgresOptions, type QueryListener } from '../../src/db/database.ts';
import { createDatabase, type TestPostgresDatabase } from './postgres-setup.ts';

/** Which database this test project runs on: the suite runs once on each. */
export const TEST_DB = (process.env.TEST_DB ?? 'pglite') as 'pglite' | 'postgres';

/**
 * A fresh, migrated database of its own for one test file: in-memory PGlite, or a PostgreSQL
 * database cloned from the run's template.
 */
export async function openTestDatabase(
  options: { onQuery?: QueryListener; timeouts?: PostgresOptions['timeouts'] } = {},
): Promise<Database & { url?: string }> {
  if (TEST_DB === 'pglite') return openPglite(undefined, options.onQuery);
  const database = await cloneTemplate();
  const db = await openPostgres({ url: database.url, onQuery: options.onQuery, timeouts: options.timeouts });
  return {
    ...db,
    url: database.url,
    async close() {
      await db.close();
      await database.drop();
    },
  };
}

/** A PostgreSQL database of one test file's own, cloned from the run's migrated template. */
export function cloneTemplate(): Promise<TestPostgresDatabase> {
  return createDatabase({ prefix: inject('pgRunPrefix'), template: inject('pgTemplate') });
}
