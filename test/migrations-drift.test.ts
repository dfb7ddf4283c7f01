import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { diffDatabaseToSchema, loadSchemaEngine } from '../src/db/schema-engine.ts';

/**
 * The committed migrations must build exactly the database that prisma/schema.prisma describes: a
 * schema change without its migration (or an edited migration) fails here. The WASM schema engine
 * introspects the migrated database and diffs it against the schema; an empty diff means no drift.
 * Runs once (in the PGlite project); the PostgreSQL part makes a throwaway database of its own.
 */

const SCHEMA_PATH = fileURLToPath(new URL('../prisma/schema.prisma', import.meta.url));
const MIGRATIONS_DIR = fileURLToPath(new URL('../prisma/migrations/', import.meta.url));
const ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const TIMEOUT = 120_000;

/** Every committed migration.sql, in folder (= timestamp) order, run as-is: nothing recorded. */
async function applyCommittedMigrations(exec: (sql: string) => Promise<unknown>): Promise<string[]> {
  const folders = (await readdir(MIGRATIONS_DIR, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  for (const folder of folders) await exec(await readFile(join(MIGRATIONS_DIR, folder, 'migration.sql'), 'utf8'));
  return folders;
}

function urlFor(database: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  return url.toString();
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
        expect(await diffDatabaseToSchema({ adapterFactory: new PrismaPGlite(pglite), schemaPath: SCHEMA_PATH })).toBe('');
      },
      TIMEOUT,
    );

    test(
      'the check can fail: a column dropped after migrating shows up in the diff',
      async () => {
        await pglite.exec('ALTER TABLE orders DROP COLUMN fee_bips');
        const diff = await diffDatabaseToSchema({ adapterFactory: new PrismaPGlite(pglite), schemaPath: SCHEMA_PATH });
        expect(diff).toMatch(/ALTER TABLE "orders" ADD COLUMN\s+"fee_bips" INTEGER NOT NULL/);
      },
      TIMEOUT,
    );
  });

  describe.skipIf(Boolean(process.env.TEST_SKIP_POSTGRES))('PostgreSQL', () => {
    const database = `obg_drift_${randomBytes(6).toString('hex')}`;
    let admin: pg.Client | undefined;

    beforeAll(async () => {
      admin = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 5_000 });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${database}`);
      const client = new pg.Client({ connectionString: urlFor(database) });
      await client.connect();
      try {
        await applyCommittedMigrations((sql) => client.query(sql));
      } finally {
        await client.end();
      }
    }, TIMEOUT);

    afterAll(async () => {
      if (!admin) return;
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.end();
    }, TIMEOUT);

    // The two tests share the database and run in this order.
    test(
      'the migrations build exactly the schema',
      async () => {
        const adapterFactory = new PrismaPg({ connectionString: urlFor(database) });
        expect(await diffDatabaseToSchema({ adapterFactory, schemaPath: SCHEMA_PATH })).toBe('');
      },
      TIMEOUT,
    );

    test(
      'the check can fail: a column dropped after migrating shows up in the diff',
      async () => {
        const client = new pg.Client({ connectionString: urlFor(database) });
        await client.connect();
        try {
          await client.query('ALTER TABLE orders DROP COLUMN fee_bips');
        } finally {
          await client.end();
        }
        const adapterFactory = new PrismaPg({ connectionString: urlFor(database) });
        const diff = await diffDatabaseToSchema({ adapterFactory, schemaPath: SCHEMA_PATH });
        expect(diff).toMatch(/ALTER TABLE "orders" ADD COLUMN\s+"fee_bips" INTEGER NOT NULL/);
      },
      TIMEOUT,
    );
  });
});
