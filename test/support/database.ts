import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { openPglite, openPostgres, type Database, type PostgresOptions } from '../../src/db/database.ts';
import { ADMIN_URL, urlFor } from './postgres-setup.ts';

/** Which database this test project runs on: the suite runs once on each. */
export const TEST_DB = (process.env.TEST_DB ?? 'pglite') as 'pglite' | 'postgres';

/**
 * A fresh, migrated database of its own for one test file: in-memory PGlite, or a PostgreSQL
 * database cloned from the run's template.
 */
export async function openTestDatabase(
  options: { onQuery?: (sql: string) => void; timeouts?: PostgresOptions['timeouts'] } = {},
): Promise<Database & { url?: string }> {
  if (TEST_DB === 'pglite') return openPglite(undefined, options.onQuery);
  const name = `${inject('pgRunPrefix')}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${inject('pgTemplate')}`);
  } finally {
    await admin.end();
  }
  const db = await openPostgres({ url: urlFor(name), onQuery: options.onQuery, timeouts: options.timeouts });
  return {
    ...db,
    url: urlFor(name),
    async close() {
      await db.close();
      const dropper = new pg.Client({ connectionString: ADMIN_URL });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await dropper.end();
    },
  };
}
