import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCK_FILE } from '../src/db/data-dir-lock.ts';
import { TEST_DB } from './support/database.ts';
import { orderBody } from './support/fixtures.ts';

/**
 * The real process, as `npm start` runs it: the production build (built here from the current sources, as
 * `npm ci` does), embedded database on a fresh data directory, a real port, SIGTERM. Runs once (PGlite
 * project): the database does not change what is tested here.
 */
describe.skipIf(TEST_DB !== 'pglite')('npm start', () => {
  let child: ChildProcess;
  let dataDir: string;
  let output = '';
  let base = '';

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'obg-data-'));
    execFileSync(process.execPath, ['--import', 'tsx', 'prisma/scripts/build.ts'], { stdio: 'pipe' });
    // A port below the kernel's ephemeral range (32768 and up), which outgoing connections of the
    // suite's other files take from; another port if this one is taken all the same.
    for (let attempt = 0; ; attempt++) {
      const port = 20000 + Math.floor(Math.random() * 12000);
      base = `http://127.0.0.1:${port}`;
      output = '';
      child = spawn(process.execPath, ['dist/server.js'], {
        env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout!.on('data', (d) => (output += d));
      child.stderr!.on('data', (d) => (output += d));
      if (await healthy(child, base, () => output)) break;
      if (!output.includes('EADDRINUSE') || attempt >= 4) throw new Error(`server did not start:\n${output}`);
    }
  }, 150_000);

  afterAll(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('exits with the reason when its port is taken, rather than run without listening', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port: takenPort } = taken.address() as AddressInfo;
    const otherDir = mkdtempSync(join(tmpdir(), 'obg-data-'));
    try {
      const { code, stderr } = await failedStart({ PORT: String(takenPort), DATA_DIR: otherDir });
      expect(code).toBe(1);
      expect(stderr).toContain(`failed to start: cannot listen on 127.0.0.1:${takenPort} (EADDRINUSE)`);
    } finally {
      taken.close();
      rmSync(otherDir, { recursive: true, force: true });
    }
  }, 40_000);

  it('exits 2 with every problem named when ASSETS_FILE is bad, as for any bad setting', async () => {
    const otherDir = mkdtempSync(join(tmpdir(), 'obg-data-'));
    const assets = join(otherDir, 'assets.json');
    writeFileSync(assets, JSON.stringify({ fee_bips: -1, chains: [], assets: [] }));
    try {
      const { code, stderr } = await failedStart({ PORT: '0', DATA_DIR: otherDir, ASSETS_FILE: assets });
      expect(stderr).toContain(`Invalid asset registry (${assets})`);
      expect(code).toBe(2);
    } finally {
      rmSync(otherDir, { recursive: true, force: true });
    }
  }, 40_000);

  it('serves health, REST and GraphQL on the embedded database', async () => {
    expect(await (await fetch(`${base}/health`)).text()).toBe('Online');
    const quote = await fetch(`${base}/quotes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ source: { asset: 'bitcoin:btc', amount: '10000000' }, destination: { asset: 'base:cbbtc' } }),
    });
    expect(quote.status).toBe(201);
    const gql = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ chains { id } }' }),
    });
    expect((await gql.json()).data.chains.length).toBeGreaterThan(5);
  });

  it('refuses a second process on its data directory: a seed exits with the owner named, the server serves on', async () => {
    const seed = spawn(process.execPath, ['--import', 'tsx', 'prisma/scripts/seed/cli.ts', '--orders', '5'], {
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let seedOutput = '';
    seed.stdout!.on('data', (d) => (seedOutput += d));
    seed.stderr!.on('data', (d) => (seedOutput += d));
    const code = await new Promise<number | null>((resolve) => seed.once('exit', resolve));
    expect(code).not.toBe(0);
    expect(seedOutput).toContain(`is in use by process ${child.pid}`);
    const page = await fetch(`${base}/orders?limit=5`);
    expect(page.status).toBe(200);
  }, 30_000);

  it('finishes an in-flight request on SIGTERM, then exits 0', async () => {
    const quote = await (
      await fetch(`${base}/quotes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ source: { asset: 'bitcoin:btc', amount: '10000000' }, destination: { asset: 'ethereum:wbtc' } }),
      })
    ).json();
    const body = JSON.stringify(orderBody(quote.result));
    // Half a request body is on the wire when SIGTERM arrives: the server has accepted the request
    // and must still answer it.
    const request = httpRequest(`${base}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
      request.on('response', (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      });
      request.on('error', reject);
    });
    request.write(body.slice(0, 40));
    await new Promise((r) => setTimeout(r, 300));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    request.end(body.slice(40));
    const { status, text } = await response;
    expect(status, text).toBe(201);
    expect(await exited).toBe(0);
    expect(output).toContain('stopped');
    // A clean exit gives the data directory back.
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
  }, 30_000);
});

/**
 * Whether the server answers /health within 60 s; false as soon as it exits (a port taken, for one). A fresh
 * data directory compiles PGlite and runs every migration, which beside the rest of the suite on two cores has
 * taken over 30 s.
 */
async function healthy(child: ChildProcess, base: string, output: () => string): Promise<boolean> {
  const started = Date.now();
  for (;;) {
    try {
      // Bounded: whatever else holds the port may accept and never answer.
      if ((await fetch(`${base}/health`, { signal: AbortSignal.timeout(1000) })).ok) return true;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null) {
      await new Promise((r) => setTimeout(r, 100)); // the rest of its output
      return false;
    }
    if (Date.now() - started > 60_000) throw new Error(`server did not start:\n${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A server that should not start: its exit code (null if it was still running after 30 s) and its stderr. */
async function failedStart(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['dist/server.js'], {
    env: { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve(null);
    }, 30_000);
    child.once('exit', (exitCode) => {
      clearTimeout(timer);
      resolve(exitCode);
    });
  });
  return { code, stderr };
}
