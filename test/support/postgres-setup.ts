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

export default async function setup(project: TestProject) {
  const prefix = `obg_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const template = `${prefix}_tpl`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  // A connection cut by the server (a restart) must not crash the whole run from an unhandled event.
  admin.on('error', () => undefined);
  await admin.connect();
  await admin.query(`CREATE DATABASE ${template}`);
  await admin.end();
  const client = new pg.Client({ connectionString: urlFor(template) });
  await client.connect();
  await applyMigrations(pgTarget(client));
  await client.end();
  project.provide('pgTemplate', template);
  project.provide('pgRunPrefix', prefix);

  return async () => {
    const dropper = new pg.Client({ connectionString: ADMIN_URL });
    await dropper.connect();
    const { rows } = await dropper.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE datname LIKE $1',
      [`${prefix}%`],
    );
    for (const { datname } of rows) await dropper.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    await dropper.end();
  };
}

export function urlFor(database: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  return url.toString();
}
