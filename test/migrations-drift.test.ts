import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readMigrations } from '../src/db/migrate.ts';
import { diffDatabaseToSchema, loadSchemaEngine, withoutPartitioning } from '../prisma/scripts/schema-engine.ts';
import { createDatabase, testDbPrefix, type TestPostgresDatabase } from './support/postgres-setup.ts';

/**
 * The committed migrations must build exactly the database that prisma/schema.prisma describes: a
 * schema change without its migration (or an edited migration) fails here. The WASM schema engine
 * introspects the migrated database and diffs it against the schema; an empty diff means no drift.
 * Runs once (in the PGlite project); the PostgreSQL part makes a throwaway database of its own.
 */

/** The diff with the partitioning difference taken out: '' when nothing else differs. */
function drift(diff: string): string {
  return withoutPartitioning(diff) ?? `the partitioning difference is missing from:\n${diff}`;
}

const SCHEMA_PATH = fileURLToPath(new URL('../prisma/schema.prisma', import.meta.url));
const MIGRATIONS_DIR = fileURLToPath(new URL('../prisma/migrations/', import.meta.url));
const TIMEOUT = 120_000;

/** Every committed migration.sql, in folder (= timestamp) order, run as-is: nothing recorded. */
async function applyCommittedMigrations(exec: (sql: string) => Promise<unknown>): Promise<string[]> {
  const migrations = await readMigrations(MIGRATIONS_DIR);
  for (const migration of migrations) await exec(migration.sql);
  return migrations.map((migration) => migration.name);
}

// Compile the engine's WebAssembly once for the file, outside the tests' own timings.
beforeAll(() => loadSchemaEngine(), TIMEOUT);

describe('committed migrations vs prisma/schema.prisma', () => {
  describe('PGlite', () => {
    let pglite: PGlite;

    beforeAll(async () => {
      pglite = new PGlite();
      const applied = await applyCommittedMigrations((sql) => pglite.exec(sql));
      expect(applied.length).toBeGreaterThan(0);
    }, TIMEOUT);

    afterAll(() => pglite?.close(), TIMEOUT);

    // The two tests share the database and run in this order.
    test(
      'the migrations build exactly the schema',
      async () => {
        expect(drift(await diffDatabaseToSchema({ adapterFactory: new PrismaPGlite(pglite), schemaPath: SCHEMA_PATH }))).toBe('');
      },
      TIMEOUT,
    );

    test(
      'the check can fail: a column dropped after migrating shows up in the diff',
      async () => {
        await pglite.exec('ALTER TABLE orders DROP COLUMN fee_bips');
        const diff = await diffDatabaseToSchema({ adapterFactory: new PrismaPGlite(pglite), schemaPath: SCHEMA_PATH });
        // Prisma folds the column into the orders table's statement, so the partitioning difference shows changed.
        expect(drift(diff)).toMatch(/ADD COLUMN\s+"fee_bips" INTEGER NOT NULL/);
      },
      TIMEOUT,
    );
  });

  describe.skipIf(Boolean(process.env.TEST_SKIP_POSTGRES))('PostgreSQL', () => {
    let database: TestPostgresDatabase | undefined;
    const url = () => database!.url;

    beforeAll(async () => {
      database = await createDatabase({ prefix: `${testDbPrefix()}_drift` });
      const client = new pg.Client({ connectionString: url() });
      await client.connect();
      try {
        await applyCommittedMigrations((sql) => client.query(sql));
      } finally {
        await client.end();
      }
    }, TIMEOUT);

    afterAll(() => database?.drop(), TIMEOUT);

    // The two tests share the database and run in this order.
    test(
      'the migrations build exactly the schema',
      async () => {
        const adapterFactory = new PrismaPg({ connectionString: url() });
        expect(drift(await diffDatabaseToSchema({ adapterFactory, schemaPath: SCHEMA_PATH }))).toBe('');
      },
      TIMEOUT,
    );

    test(
      'the check can fail: a column dropped after migrating shows up in the diff',
      async () => {
        const client = new pg.Client({ connectionString: url() });
        await client.connect();
        try {
          await client.query('ALTER TABLE orders DROP COLUMN fee_bips');
        } finally {
          await client.end();
        }
        const adapterFactory = new PrismaPg({ connectionString: url() });
        const diff = await diffDatabaseToSchema({ adapterFactory, schemaPath: SCHEMA_PATH });
        // Prisma folds the column into the orders table's statement, so the partitioning difference shows changed.
        expect(drift(diff)).toMatch(/ADD COLUMN\s+"fee_bips" INTEGER NOT NULL/);
      },
      TIMEOUT,
    );
  });
});

describe('the statistics triggers', () => {
  const TRIGGERS_PATH = fileURLToPath(new URL('../prisma/sql/stats-triggers.sql', import.meta.url));

  test(
    'run exactly their current source, prisma/sql/stats-triggers.sql, once migrated',
    async () => {
      const pglite = new PGlite();
      try {
        await applyCommittedMigrations((sql) => pglite.exec(sql));
        const definitions = async () =>
          (
            await pglite.query<{ definition: string }>(
              `SELECT pg_get_functiondef(oid) AS definition FROM pg_proc
               WHERE proname IN ('stats_orders_changed', 'stats_orders_truncated', 'stats_fold') ORDER BY proname`,
            )
          ).rows.map((row) => row.definition);
        const migrated = await definitions();
        expect(migrated).toHaveLength(3);
        await pglite.exec(await readFile(TRIGGERS_PATH, 'utf8'));
        expect(await definitions()).toEqual(migrated);
      } finally {
        await pglite.close();
      }
    },
    TIMEOUT,
  );
});
