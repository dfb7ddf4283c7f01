import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MIGRATIONS_DIR, readMigrations } from '../../src/db/migrate.ts';
import { createMigrationSql, MIGRATION_LOCK_CONTENT, MIGRATION_LOCK_FILE } from './schema-engine.ts';

// `npm run db:migration:create -- <name>`: writes prisma/migrations/<timestamp>_<name>/migration.sql with
// what takes a database migrated with the existing migrations to prisma/schema.prisma, as
// `prisma migrate dev --create-only` would (the native CLI cannot run here: see prisma/scripts/schema-engine.ts).
// Writes nothing when the schema has not changed.

const SCHEMA_PATH = fileURLToPath(new URL('../schema.prisma', import.meta.url));

/** Prisma's folder-name rules: lower-case words joined by `_`, at most 200 characters. */
function migrationName(raw: string): string {
  return raw
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 200);
}

/** UTC `YYYYMMDDHHMMSS`, as Prisma names migration folders. */
function timestamp(date: Date): string {
  return date.toISOString().replace(/\D/g, '').slice(0, 14);
}

/** A timestamp after every existing folder's, so folder order stays apply order even if clocks disagree. */
async function nextTimestamp(): Promise<string> {
  const existing = existsSync(MIGRATIONS_DIR)
    ? (await readMigrations(MIGRATIONS_DIR))
        .filter((migration) => /^\d{14}_/.test(migration.name))
        .map((migration) => migration.name.slice(0, 14))
    : [];
  const last = existing.at(-1);
  let date = new Date();
  while (last !== undefined && timestamp(date) <= last) date = new Date(date.getTime() + 1000);
  return timestamp(date);
}

const name = migrationName(process.argv.slice(2).join(' '));
if (!name) {
  console.error('usage: npm run db:migration:create -- <name>   (e.g. add_order_memo)');
  process.exit(2);
}

const started = performance.now();
const sql = await createMigrationSql({ schemaPath: SCHEMA_PATH, migrationsDir: MIGRATIONS_DIR });
const seconds = ((performance.now() - started) / 1000).toFixed(1);
if (!sql) {
  console.log(`no changes: prisma/schema.prisma matches the migrations (${seconds} s)`);
} else {
  const folder = `${await nextTimestamp()}_${name}`;
  await mkdir(join(MIGRATIONS_DIR, folder), { recursive: true });
  await writeFile(join(MIGRATIONS_DIR, folder, 'migration.sql'), sql);
  const lockPath = join(MIGRATIONS_DIR, MIGRATION_LOCK_FILE);
  if (!existsSync(lockPath)) await writeFile(lockPath, MIGRATION_LOCK_CONTENT);
  console.log(`created prisma/migrations/${folder}/migration.sql (${seconds} s); review it before committing`);
}
