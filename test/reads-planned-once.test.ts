import type pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seed } from '../prisma/scripts/seed/index.ts';
import { loadConfig } from '../src/config.ts';
import { openPostgres, postgresPool, ROW_STORE_APPLICATION } from '../src/db/database.ts';
import { pgRowReader } from '../src/db/pg-reader.ts';
import { statementNamer } from '../src/db/prepared-statements.ts';
import { createRowStore } from '../src/db/row-store.ts';
import { restOrderJson } from '../src/rest/rendered-pages.ts';
import { TEST_DB } from './support/database.ts';
import { createDatabase, testDbPrefix, type TestPostgresDatabase } from './support/postgres-setup.ts';

/**
 * The row store's reads are planned once per session, with or without planner statistics. Without them (a
 * fresh install, a month's new partition before autovacuum reaches it) PostgreSQL, left to choose, plans the
 * REST user page again on every execution, which costs more than the page; its reads pool keeps one plan
 * (GENERIC_PLANS in src/db/database.ts). Read here from pg_prepared_statements, which counts per session how
 * many executions of a statement ran on a generic plan and how many were planned for their parameters: a pool of one connection, so every read and the count share that session.
 */

const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent' });
let database: TestPostgresDatabase;
let users: string[];

beforeAll(async () => {
  if (TEST_DB !== 'postgres') return;
  database = await createDatabase({ prefix: `${testDbPrefix()}_plans`, migrate: true });
  const db = await openPostgres({ url: database.url });
  try {
    await seed({ db, config, orders: 3000, users: 20, days: 60, seed: 'plans', evenUsers: true });
    // As before any ANALYZE: no statistics, sizes unknown, and nothing to gather them meanwhile.
    await db.driver.exec(`
      DO $$ DECLARE r record; BEGIN
        FOR r IN SELECT c.oid::regclass AS name FROM pg_class c WHERE c.relname ~ '^(orders|intents)_' AND c.relkind = 'r' LOOP
          EXECUTE format('ALTER TABLE %s SET (autovacuum_enabled = false)', r.name);
        END LOOP;
      END $$;
      DELETE FROM pg_statistic WHERE starelid IN (SELECT oid FROM pg_class WHERE relname ~ '^(orders|intents)');
      UPDATE pg_class SET reltuples = -1, relpages = 0 WHERE relname ~ '^(orders|intents)' AND relkind IN ('r', 'p');`);
    users = (await db.driver.query<{ user_id: string }>('SELECT DISTINCT user_id FROM orders ORDER BY 1')).map((r) => r.user_id);
  } finally {
    await db.close();
  }
}, 300_000);

afterAll(async () => {
  await database?.drop();
});

/** The REST user page of every user, through a row store reading on `pool`; then its plans in that session. */
async function pagePlans(pool: pg.Pool) {
  const adapter = await new PrismaPg(pool).connect();
  try {
    const rows = createRowStore(adapter, undefined, pgRowReader(pool, statementNamer()));
    for (const userId of users) {
      const page = await rows.userPageJson({ userId, limit: 20, offset: 0 }, restOrderJson, new Date());
      expect(page.total).toBeGreaterThan(20);
    }
    const [plans] = (
      await pool.query<{ generic: number; custom: number }>(
        `SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE statement LIKE '%string_agg%'`,
      )
    ).rows;
    return plans;
  } finally {
    await adapter.dispose();
  }
}

describe.skipIf(TEST_DB !== 'postgres')('the row store without planner statistics', () => {
  it("reads its pages on the row store's sessions", async () => {
    const db = await openPostgres({ url: database.url, poolSize: 1 });
    try {
      await db.rows.userPageJson({ userId: users[0]!, limit: 20, offset: 0 }, restOrderJson, new Date());
      const sessions = await db.driver.query<{ application_name: string }>(
        `SELECT application_name FROM pg_stat_activity WHERE datname = current_database() AND query LIKE '%string_agg%'
           AND pid <> pg_backend_pid()`,
      );
      expect(sessions).toEqual([{ application_name: ROW_STORE_APPLICATION }]);
    } finally {
      await db.close();
    }
  });

  it('runs the user page on one plan made once per session', async () => {
    expect(users.length).toBeGreaterThanOrEqual(10);
    const reads = postgresPool(database.url, { poolSize: 1 }, { rowStore: true });
    const other = postgresPool(database.url, { poolSize: 1 });
    try {
      expect(await pagePlans(reads)).toEqual({ generic: users.length, custom: 0 });
      // And never compiled: a generic plan's cost can pass jit_above_cost, and JIT code is not kept.
      expect((await reads.query<{ jit: string }>('SHOW jit')).rows[0]?.jit).toBe('off');
      // Left to choose, PostgreSQL plans for the parameters first: five times on a book this small; on a
      // million orders without statistics, on every read (test/bench/README.md, Plans without statistics).
      expect((await pagePlans(other))?.custom).toBeGreaterThan(0);
    } finally {
      await Promise.all([reads.end(), other.end()]);
    }
  });
});
