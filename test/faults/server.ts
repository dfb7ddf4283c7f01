import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { pgTarget } from '../../src/db/database.ts';
import { applyMigrations } from '../../src/db/migrate.ts';
import type { Json } from '../support/app.ts';
import { USER_BTC, USER_EVM } from '../support/fixtures.ts';
import { createDatabase, testDbPrefix, type TestPostgresDatabase } from '../support/postgres-setup.ts';
import { redisAnswers } from '../support/redis.ts';
import { freePort, startServer as startServerProcess, type ServerProcess } from '../support/server-process.ts';

export type { ServerProcess };

/** The server as `npm start` runs it, logging warnings and worse. */
export function startServer(env: Record<string, string>): Promise<ServerProcess> {
  return startServerProcess({ LOG_LEVEL: 'warn', ...env });
}

/** A migrated PostgreSQL database of its own, dropped by the returned function. */
export function freshDatabase(): Promise<TestPostgresDatabase> {
  return createDatabase({ prefix: `${testDbPrefix()}_fault`, migrate: true });
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
  return { status: response.status, headers: response.headers, body: (await response.json()) as { status: string; result: Json } };
}

/** Quote then order, as a client does; resolves with the order id once acknowledged (201). */
export async function createOne(base: string, userId: string): Promise<string | undefined> {
  const quote = await postJson(base, '/quotes', {
    source: { asset: 'bitcoin:btc', amount: '10000000' },
    destination: { asset: 'ethereum:wbtc' },
  });
  if (quote.status !== 201) return undefined;
  const q = quote.body.result;
  const order = await postJson(base, '/orders', {
    user_id: userId,
    quote_id: q.quote_id,
    source: { asset: q.source.asset, recipient: USER_BTC, amount: q.source.amount },
    destination: { asset: q.destination.asset, recipient: USER_EVM, amount: q.destination.amount },
    commitment_hash: createHash('sha256').update(randomBytes(32)).digest('hex'),
  });
  return order.status === 201 ? order.body.result.order_id : undefined;
}

/**
 * A Redis of the test's own on a free port (the machine's shared one is never stopped), which the
 * test can kill and start again on the same port, empty, as after a crash.
 */
export async function privateRedis() {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const ping = () => redisAnswers(port);

  const redis = {
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
        stdio: 'ignore',
      });
      for (let i = 0; i < 100 && !ping(); i++) await new Promise((r) => setTimeout(r, 50));
      if (!ping()) throw new Error(`redis-server did not start on port ${port}`);
    },
    async kill() {
      if (!child || child.exitCode !== null) return;
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
  await redis.start();
  return redis;
}

/**
 * A PostgreSQL cluster of the test's own (initdb in a temporary folder, on a free port), so a test
 * can freeze it (SIGSTOP: alive, accepting TCP, answering nothing) without touching the machine's.
 */
export async function privatePostgres() {
  const bin = join('/usr/lib/postgresql', readdirSync('/usr/lib/postgresql')[0]!, 'bin');
  const dir = mkdtempSync(join(tmpdir(), 'obg-pg-'));
  chmodSync(dir, 0o777);
  const data = join(dir, 'data');
  const port = await freePort();
  const asPostgres = (...args: string[]) => execFileSync('runuser', ['-u', 'postgres', '--', ...args], { stdio: 'pipe' });
  asPostgres(join(bin, 'initdb'), '-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync');
  asPostgres(
    join(bin, 'pg_ctl'),
    '-D',
    data,
    '-w',
    '-l',
    join(dir, 'log'),
    '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
    'start',
  );
  const url = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await applyMigrations(pgTarget(client));
  await client.end();
  /** The postmaster and every backend it forked. */
  const processes = () => {
    const postmaster = readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]!.trim();
    const children = execFileSync('pgrep', ['-P', postmaster], { stdio: 'pipe' }).toString().split('\n').filter(Boolean);
    return [Number(postmaster), ...children.map(Number)];
  };
  return {
    url,
    freeze: () => processes().forEach((pid) => process.kill(pid, 'SIGSTOP')),
    thaw: () => processes().forEach((pid) => process.kill(pid, 'SIGCONT')),
    destroy() {
      try {
        // A backend may exit between listing and signalling it (ESRCH): only the living need waking.
        for (const pid of processes()) {
          try {
            process.kill(pid, 'SIGCONT');
          } catch {}
        }
        asPostgres(join(bin, 'pg_ctl'), '-D', data, '-m', 'immediate', 'stop');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
