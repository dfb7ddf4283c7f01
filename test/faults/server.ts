import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createDatabase, type TestPostgresDatabase } from '../support/postgres-setup.ts';
import { startServer as startServerProcess, type ServerProcess } from '../support/server-process.ts';

export type { ServerProcess };

/** The server as `npm start` runs it, logging warnings and worse. */
export function startServer(env: Record<string, string>): Promise<ServerProcess> {
  return startServerProcess({ LOG_LEVEL: 'warn', ...env });
}

/** A migrated PostgreSQL database of its own, dropped by the returned function. */
export function freshDatabase(): Promise<TestPostgresDatabase> {
  return createDatabase({ prefix: 'obg_fault', migrate: true });
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
