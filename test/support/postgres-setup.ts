import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { pgTarget } from '../../src/db/database.ts';
import { applyMigrations } from '../../src/db/migrate.ts';

/**
 * Global setup of the PostgreSQL test project: one migrated template database per run, named after
 * the run, from which every test file clones its own database. Runs never share a database.
 */
export const ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';

declare module 'vitest' {
  export interface ProvidedContext {
    pgTemplate: string;
    pgRunPrefix: string;
  }
}

/**
 * The names of a run's databases: TEST_DB_PREFIX (default `obg`), then the run's own time and random part,
 * so runs sharing a server (CI jobs, several checkouts) can be told apart and cleaned up by prefix.
 */
export function runPrefix(env: Record<string, string | undefined> = process.env): string {
  return `${testDbPrefix(env)}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
}

/** TEST_DB_PREFIX, checked: the start of every database name the tests create. */
export function testDbPrefix(env: Record<string, string | undefined> = process.env): string {
  const base = env.TEST_DB_PREFIX || 'obg';
  // Lower case, so PostgreSQL keeps the unquoted name as written; short, so the longest name fits in 63 bytes.
  if (!/^[a-z_][a-z0-9_]{0,29}$/.test(base)) {
    throw new Error('TEST_DB_PREFIX must be 1 to 30 characters of a-z, 0-9 and _, not starting with a digit');
  }
  return base;
}

export default async function setup(project: TestProject) {
  const prefix = runPrefix();
  const template = await createDatabase({ name: `${prefix}_tpl`, migrate: true });
  project.provide('pgTemplate', template.name);
  project.provide('pgRunPrefix', prefix);

  return async () => {
    const dropper = new pg.Client({ connectionString: ADMIN_URL });
    await dropper.connect();
    const { rows } = await dropper.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [`${prefix}%`]);
    for (const { datname } of rows) await dropper.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    await dropper.end();
  };
}

/** Runs one statement as the admin user, on a connection of its own. */
async function asAdmin(sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  // A connection cut by the server (a restart) must not crash the whole run from an unhandled event.
  admin.on('error', () => undefined);
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

export interface TestPostgresDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/**
 * A PostgreSQL database of its own: a clone of `template`, migrated (`migrate`), or empty. `name`
 * defaults to a random one with `prefix`; `drop` removes it, its connections cut.
 */
export async function createDatabase(
  options: { name?: string; prefix?: string; template?: string; migrate?: boolean } = {},
): Promise<TestPostgresDatabase> {
  const name = options.name ?? `${options.prefix ?? runPrefix()}_${randomBytes(4).toString('hex')}`;
  await asAdmin(`CREATE DATABASE ${name}${options.template ? ` TEMPLATE ${options.template}` : ''}`);
  if (options.migrate) {
    const client = new pg.Client({ connectionString: urlFor(name) });
    await client.connect();
    try {
      await applyMigrations(pgTarget(client));
    } finally {
      await client.end();
    }
  }
  return { name, url: urlFor(name), drop: () => asAdmin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

export function urlFor(database: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  return url.toString();
}
