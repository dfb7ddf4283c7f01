/**
 * `npm run bench:profile`: where the service's CPU goes on each hot path. For each path it starts the service
 * under `node --cpu-prof`, loads that one path with autocannon, stops the service (the profile is written on
 * exit), and prints the ten functions with the most self time, read from the .cpuprofile: each sample's time
 * (timeDeltas) is charged to the node it hit, and nodes are summed by function (name, file, line, column).
 *
 *   npm run bench:profile                       (BENCH_DATABASE_URL, the bench's seeded database)
 *   BENCH_ONLY=keyset npm run bench:profile     (paths whose name contains one of these texts)
 *
 * Environment: BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/bench), BENCH_SECONDS of load
 * per path (default 10, after a 2 s warm-up), BENCH_CONNECTIONS (default 10), PROFILE_TOP (default 10),
 * PROFILE_DIR (where the .cpuprofile files are kept; default a temporary folder, removed at the end).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { graphqlLoad, quoteThenOrder } from './create-floor.ts';
import { FLOOR_DOCUMENTS, readBook } from './floor.ts';
import { freePort } from '../support/server-process.ts';
import { NODE_FLAGS, SERVICE_ENV, serverEnv } from './node-flags.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/bench';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const TOP = Number(process.env.PROFILE_TOP ?? 10);
const ONLY = process.env.BENCH_ONLY?.split(',').filter(Boolean);

interface CpuProfile {
  startTime: number;
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  name: string;
  where: string;
  ms: number;
  /** Share of all samples that were not idle. */
  share: number;
}

/**
 * Self time per function of a V8 CPU profile, most first; idle time left out of the shares. Only samples
 * between `fromMs` and `toMs` after the profile's start count (the load, not start-up or shutdown).
 */
export function selfTimes(profile: CpuProfile, fromMs = 0, toMs = Number.POSITIVE_INFINITY): SelfTime[] {
  const byNode = new Map<number, number>();
  let at = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at / 1000 < fromMs || at / 1000 > toMs) continue;
    const id = profile.samples[i]!;
    byNode.set(id, (byNode.get(id) ?? 0) + delta);
  }
  const byFunction = new Map<string, { name: string; where: string; us: number }>();
  for (const node of profile.nodes) {
    const us = byNode.get(node.id);
    if (!us) continue;
    const { functionName, url, lineNumber, columnNumber } = node.callFrame;
    const file = url.replace(/^file:\/\//, '').replace(ROOT, '');
    const where = file ? `${file}:${lineNumber + 1}:${columnNumber + 1}` : '';
    const key = `${functionName}|${where}`;
    const entry = byFunction.get(key) ?? { name: functionName || '(anonymous)', where, us: 0 };
    entry.us += us;
    byFunction.set(key, entry);
  }
  const all = [...byFunction.values()];
  const busy = all.filter((f) => f.name !== '(idle)').reduce((sum, f) => sum + f.us, 0);
  return all
    .filter((f) => f.name !== '(idle)')
    .sort((a, b) => b.us - a.us)
    .map((f) => ({ name: f.name, where: f.where, ms: f.us / 1000, share: f.us / busy }));
}

/** The service under --cpu-prof, loaded with `requests`, stopped; returns its profile. */
async function profileUnderLoad(
  name: string,
  dir: string,
  requests: autocannon.Request[],
): Promise<{ profile: CpuProfile; rps: number; fromMs: number; toMs: number }> {
  const port = await freePort();
  // The profile starts with the process: the measured load is this long after the spawn.
  const spawned = performance.now();
  const profileDir = mkdtempSync(path.join(dir, 'run-'));
  const child = spawn(process.execPath, [...NODE_FLAGS, '--cpu-prof', `--cpu-prof-dir=${profileDir}`, '--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT,
    env: serverEnv(DATABASE_URL, port, SERVICE_ENV),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const deadline = Date.now() + 90_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${name}: the service exited (${child.exitCode}): ${stderr.slice(-2000)}`);
      if (
        await fetch(`http://127.0.0.1:${port}/health`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break;
      if (Date.now() > deadline) throw new Error(`${name}: the service did not start: ${stderr.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const run = (duration: number) => autocannon({ url: `http://127.0.0.1:${port}`, connections: CONNECTIONS, duration, requests });
    await run(2);
    const fromMs = performance.now() - spawned;
    const result = await run(SECONDS);
    const toMs = performance.now() - spawned;
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    child.kill('SIGTERM');
    await exited;
    const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error(`${name}: no .cpuprofile written in ${profileDir}: ${stderr.slice(-2000)}`);
    const profile = JSON.parse(readFileSync(path.join(profileDir, file), 'utf8')) as CpuProfile;
    return { profile, rps: result.requests.average, fromMs, toMs };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

async function main(): Promise<void> {
  const { users, deepCursor } = await readBook(DATABASE_URL);
  let u = 0;
  const nextUser = () => users[u++ % users.length]!;
  const userPath = () => `/orders/user/${encodeURIComponent(nextUser())}?limit=20`;
  const paths: { name: string; requests: autocannon.Request[] }[] = [
    { name: 'REST user page', requests: [{ method: 'GET', path: userPath(), setupRequest: (req) => ({ ...req, path: userPath() }) }] },
    { name: 'GraphQL user page', requests: [graphqlLoad(FLOOR_DOCUMENTS.userPage, () => ({ u: nextUser() }))] },
    { name: 'keyset page', requests: [graphqlLoad(FLOOR_DOCUMENTS.keyset, () => ({ after: deepCursor }))] },
    {
      name: 'create pair',
      requests: quoteThenOrder(),
    },
  ];

  const keep = process.env.PROFILE_DIR;
  const dir = keep ?? mkdtempSync(path.join(os.tmpdir(), 'bench-profile-'));
  console.log(
    `CPU profiles (node --cpu-prof) of the service under ${CONNECTIONS} connections, ${SECONDS} s per path; self time per function during the measured load (start-up, warm-up and shutdown left out)`,
  );
  try {
    for (const p of paths) {
      if (ONLY && !ONLY.some((text) => p.name.includes(text))) continue;
      const { profile, rps, fromMs, toMs } = await profileUnderLoad(p.name, dir, p.requests);
      const times = selfTimes(profile, fromMs, toMs);
      console.log(`\n### ${p.name} (${rps.toFixed(0)} req/s while profiled)`);
      for (const t of times.slice(0, TOP)) {
        console.log(`  ${(t.share * 100).toFixed(1).padStart(5)}%  ${t.ms.toFixed(0).padStart(6)} ms  ${t.name}  ${t.where}`);
      }
    }
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error: unknown) => {
    console.error(`profile failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  });
}
