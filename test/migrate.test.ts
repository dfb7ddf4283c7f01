import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import { openPostgres, pgliteTarget } from '../src/db/database.ts';
import { MIGRATIONS_DIR, applyMigrations, pendingMigrations, readMigrations } from '../src/db/migrate.ts';
import { TEST_DB } from './support/database.ts';
import { createDatabase, testDbPrefix, type TestPostgresDatabase } from './support/postgres-setup.ts';

describe.skipIf(TEST_DB !== 'pglite')('migration runner (on PGlite, once)', () => {
  it('applies every committed migration once, recording Prisma checksums, and is safe to rerun', async () => {
    const pglite = await PGlite.create();
    try {
      const target = pgliteTarget(pglite);
      const all = (await readMigrations()).map((m) => m.name);
      expect(await applyMigrations(target)).toEqual(all);
      expect(await applyMigrations(target)).toEqual([]);
      const rows = await target.query<{ migration_name: string; checksum: string }>(
        'SELECT migration_name, checksum FROM "_prisma_migrations" ORDER BY migration_name',
      );
      expect(rows.map((r) => r.migration_name)).toEqual(all);
      expect(rows.every((r) => /^[0-9a-f]{64}$/.test(r.checksum))).toBe(true);
    } finally {
      await pglite.close();
    }
  });

  it('refuses a migration edited after it was applied, when applying and when checking, and rolls back a failing one whole', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'obg-migrations-'));
    const pglite = await PGlite.create();
    try {
      cpSync(MIGRATIONS_DIR, dir, { recursive: true });
      const target = pgliteTarget(pglite);
      await applyMigrations(target, dir);
      const [first] = readdirSync(dir)
        .filter((n) => n !== 'migration_lock.toml')
        .sort();
      writeFileSync(join(dir, first!, 'migration.sql'), '-- edited\n', { flag: 'a' });
      await expect(applyMigrations(target, dir)).rejects.toThrow(/edited after it was applied/);
      // The start-up check of a database the service does not migrate says the same.
      await expect(pendingMigrations(target, dir)).rejects.toThrow(/edited after it was applied/);

      const broken = mkdtempSync(join(tmpdir(), 'obg-migrations-'));
      cpSync(MIGRATIONS_DIR, broken, { recursive: true });
      const fresh = await PGlite.create();
      const name = '99990101000000_broken';
      cpSync(join(broken, first!), join(broken, name), { recursive: true });
      writeFileSync(join(broken, name, 'migration.sql'), 'CREATE TABLE ok_table (id int);\nSELECT no_such_function();\n');
      await expect(applyMigrations(pgliteTarget(fresh), broken)).rejects.toThrow();
      const tables = await fresh.query(`SELECT to_regclass('orders') AS orders, to_regclass('ok_table') AS ok`);
      expect(tables.rows[0]).toEqual({ orders: null, ok: null });
      await fresh.close();
      rmSync(broken, { recursive: true, force: true });
    } finally {
      await pglite.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(TEST_DB !== 'postgres')('PostgreSQL start-up', () => {
  let database: TestPostgresDatabase | undefined;
  afterAll(() => database?.drop());

  it('refuses to start on unapplied migrations, and runs once they are applied (npm run db:migrate)', async () => {
    database = await createDatabase({ prefix: `${testDbPrefix()}_migrate` });
    const { url } = database;
    await expect(openPostgres({ url })).rejects.toThrow(/unapplied migration.*npm run db:migrate/);
    const migrated = await openPostgres({ url, migrate: true });
    await migrated.close();
    const db = await openPostgres({ url });
    expect(await db.prisma.order.count()).toBe(0);
    await db.close();
  });
});
