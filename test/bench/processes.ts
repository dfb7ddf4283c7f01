import { spawn, type ChildProcess } from 'node:child_process';
import pg from 'pg';
import { freePort } from '../support/server-process.ts';
import { nodeFlags, serverEnv } from './node-flags.ts';
import { DATABASE_URL, ROOT } from './settings.ts';

/** The servers a run measures, as child processes stopped when the run ends. */

export const children: ChildProcess[] = [];

export interface Started {
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts `script` from a checkout (this one unless `at.root`: an A/B) on a database (the bench's unless
 * `at.databaseUrl`), and resolves once it answers.
 */
export async function start(
  name: string,
  script: string,
  env: Record<string, string> = {},
  at: { root?: string; databaseUrl?: string } = {},
): Promise<Started> {
  const port = await freePort();
  const root = at.root ?? ROOT;
  const child = spawn(process.execPath, [...nodeFlags(root), '--import', 'tsx', script], {
    cwd: root,
    env: serverEnv(at.databaseUrl ?? DATABASE_URL, port, env),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  children.push(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}): ${stderr.slice(-2000)}`);
    // Any answer means it listens (PostGraphile has no /health).
    const up = await fetch(`http://127.0.0.1:${port}/health`).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) throw new Error(`${name} did not start within 90 s: ${stderr.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    port,
    child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Drops `url`'s database and creates it again, migrated by `root`'s migrations: a bench that starts from empty. */
export async function recreateDatabase(adminUrl: string, url: string, root = ROOT): Promise<void> {
  const database = new URL(url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(database)} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(database)}`);
  } finally {
    await admin.end();
  }
  const migrate = spawn('npm', ['run', '--silent', 'db:migrate'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: url },
    stdio: 'inherit',
  });
  const code = await new Promise((resolve) => migrate.once('exit', resolve));
  if (code !== 0) throw new Error(`db:migrate failed (${code})`);
}

export function stopAll(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
}
process.on('exit', stopAll);
process.on('SIGINT', () => process.exit(130));
