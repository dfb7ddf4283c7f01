import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import pg from 'pg';
import { pgTarget } from '../../src/db/database.ts';
import { applyMigrations } from '../../src/db/migrate.ts';
import { ADMIN_URL, urlFor } from '../support/postgres-setup.ts';
import { startServer as startServerProcess, type ServerProcess } from '../support/server-process.ts';

export type { ServerProcess };

/** The server as `npm start` runs it, logging warnings and worse. */
export function startServer(env: Record<string, string>): Promise<ServerProcess> {
  return startServerProcess({ LOG_LEVEL: 'warn', ...env });
}

/** A migrated PostgreSQL database of its own, dropped by the returned function. */
export async function freshDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `obg_fault_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const client = new pg.Client({ connectionString: urlFor(name) });
  await client.connect();
  await applyMigrations(pgTarget(client));
  await client.end();
  return {
    url: urlFor(name),
    async drop() {
      const a = new pg.Client({ connectionString: ADMIN_URL });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}

const cluster = () => readdirSync('/etc/postgresql')[0]!;

/** Stops the machine's PostgreSQL the hard way (no shutdown checkpoint, connections cut). */
export function stopPostgres(): void {
  execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', cluster(), 'main', 'stop', '-m', 'immediate']);
}

/** Starts it again; a cluster that is already running is fine. */
export function startPostgres(): void {
  try {
    execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', cluster(), 'main', 'start'], { stdio: 'pipe' });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer };
    if (!/already running/.test(`${stdout ?? ''}${stderr ?? ''}`)) throw error;
  }
}

export async function postJson(base: string, path: string, body: unknown, timeoutMs = 10_000) {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as { status: string; result: any } };
}
