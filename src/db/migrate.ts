import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROJECT_ROOT } from '../paths.ts';

/**
 * Applies the committed migrations (prisma/migrations/<timestamp>_<name>/migration.sql) in order and
 * records them in `_prisma_migrations` exactly as `prisma migrate deploy` does (same table, same
 * sha256 checksum), so a machine with the native Prisma CLI sees the same history. We do it ourselves
 * because the native schema engine cannot be downloaded here and the WASM engine takes 10+ s a run.
 */

export const MIGRATIONS_DIR = fileURLToPath(new URL('prisma/migrations/', PROJECT_ROOT));

/** The little a migration needs from a connection: a script runner and a query. */
export interface MigrationTarget {
  exec(sql: string): Promise<void>;
  query<T>(sql: string, params?: unknown[]): Promise<T[]>;
}

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export async function readMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    }),
  );
}

const HISTORY_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

// Any constant works; it only has to be the same for every instance of this service.
const MIGRATION_LOCK_KEY = 0x6f7262; // "orb"

interface AppliedRow {
  migration_name: string;
  checksum: string;
}

/** An applied migration whose file changed since would leave this database unlike every other. */
function assertUnedited(migration: Migration, appliedChecksum: string): void {
  if (appliedChecksum !== migration.checksum) {
    throw new Error(`migration ${migration.name} was edited after it was applied (checksum differs)`);
  }
}

/**
 * Brings the database up to date. Runs in one transaction under an advisory lock, so instances
 * starting together apply each migration once, and a failure leaves the database as it was.
 * Refuses to run when an applied migration's file was edited afterwards.
 */
export async function applyMigrations(target: MigrationTarget, dir = MIGRATIONS_DIR): Promise<string[]> {
  const migrations = await readMigrations(dir);
  await target.exec('BEGIN');
  try {
    // A migration may copy a table (20261124020000_monthly_partitions): the database's statement timeout,
    // set for the service's requests (README, Deployment), must not cancel it.
    await target.exec('SET LOCAL statement_timeout = 0');
    await target.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await target.exec(HISTORY_TABLE);
    const applied = await target.query<AppliedRow>(
      'SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    const appliedByName = new Map(applied.map((row) => [row.migration_name, row.checksum]));
    const newlyApplied: string[] = [];
    for (const migration of migrations) {
      const checksum = appliedByName.get(migration.name);
      if (checksum !== undefined) {
        assertUnedited(migration, checksum);
        continue;
      }
      await target.exec(migration.sql);
      await target.query(
        `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, finished_at, applied_steps_count)
         VALUES ($1, $2, $3, now(), 1)`,
        [randomUUID(), migration.checksum, migration.name],
      );
      newlyApplied.push(migration.name);
    }
    await target.exec('COMMIT');
    return newlyApplied;
  } catch (error) {
    await target.exec('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * Names of committed migrations not yet applied (for a PostgreSQL the service does not migrate
 * itself); throws, as applying would, when an applied one was edited since.
 */
export async function pendingMigrations(target: MigrationTarget, dir = MIGRATIONS_DIR): Promise<string[]> {
  const migrations = await readMigrations(dir);
  const [exists] = await target.query<{ present: boolean }>(`SELECT to_regclass('"_prisma_migrations"') IS NOT NULL AS present`);
  if (!exists?.present) return migrations.map((m) => m.name);
  const applied = await target.query<AppliedRow>(
    'SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
  );
  const appliedByName = new Map(applied.map((row) => [row.migration_name, row.checksum]));
  for (const migration of migrations) {
    const checksum = appliedByName.get(migration.name);
    if (checksum !== undefined) assertUnedited(migration, checksum);
  }
  return migrations.filter((m) => !appliedByName.has(m.name)).map((m) => m.name);
}
