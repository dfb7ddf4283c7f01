/**
 * Server CPU per request on each hot path: the service's own user + system time (from /proc/<pid>/stat)
 * over a fixed number of requests, divided by their count. On a shared machine rates move with the
 * neighbours; CPU per request moves much less, so this is the A/B measure of a change (test/bench/README.md).
 *
 *   BENCH_DATABASE_URL=postgresql://... npx tsx test/bench/cpu.ts      (BENCH_ONLY=user,keyset; CPU_REQUESTS)
 *
 * Linux only (/proc). The service runs as `npm start` would (NODE_ENV=production), from src/ through tsx.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { graphqlLoad, QUOTE_BODY, quoteThenOrder } from './create-floor.ts';
import { FLOOR_DOCUMENTS, readBook } from './floor.ts';
import { freePort } from '../support/server-process.ts';
import { nodeFlags, SERVICE_ENV, serverEnv } from './node-flags.ts';

/** The checkout whose service is measured (SERVICE_ROOT, for an A/B against another worktree). */
const ROOT = process.env.SERVICE_ROOT ?? fileURLToPath(new URL('../../', import.meta.url));
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/bench';
const REQUESTS = Number(process.env.CPU_REQUESTS ?? 3000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ONLY = process.env.BENCH_ONLY?.split(',').filter(Boolean);
const TICK_MS = 1000 / 100; // USER_HZ

/** utime + stime of a process, in ms. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

async function main() {
  const { users, deepCursor } = await readBook(DATABASE_URL);
  let u = 0;
  const nextUser = () => users[u++ % users.length]!;
  const userPath = () => `/orders/user/${encodeURIComponent(nextUser())}?limit=20`;
  const paths = [
    {
      name: 'REST user page',
      requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: userPath() }) }] as autocannon.Request[],
    },
    { name: 'GraphQL user page', requests: [graphqlLoad(FLOOR_DOCUMENTS.userPage, () => ({ u: nextUser() }))] },
    { name: 'keyset page', requests: [graphqlLoad(FLOOR_DOCUMENTS.keyset, () => ({ after: deepCursor }))] },
    { name: 'create pair', requests: quoteThenOrder() },
    // Diagnostics, run only when named in BENCH_ONLY: the fixed cost of a GraphQL request (one order, no intents).
    {
      name: 'keyset-1',
      requests: [graphqlLoad(FLOOR_DOCUMENTS.keyset.replace('first: 20', 'first: 1'), () => ({ after: deepCursor }))],
      explicit: true,
    },
    { name: 'graphql-min', requests: [graphqlLoad('{ __typename }', () => ({}))], explicit: true },
    // The create pair's halves: a quote alone (the order is the pair's figure less twice this), and /health.
    {
      name: 'quote',
      requests: [{ method: 'POST', path: '/quotes', headers: { 'content-type': 'application/json' }, body: JSON.stringify(QUOTE_BODY) }],
      explicit: true,
    },
    { name: 'health', requests: [{ method: 'GET', path: '/health' }], explicit: true },
  ];

  const port = await freePort();
  // CPU_PROF_DIR: also write the service's CPU profile there (node --cpu-prof), for the paths run.
  const prof = process.env.CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.CPU_PROF_DIR}`] : [];
  // CPU_TARGET=floor: the floor's CPU per request instead (test/bench/floor.ts; user pages and the keyset page only).
  const script = process.env.CPU_TARGET === 'floor' ? 'test/bench/floor.ts' : 'src/server.ts';
  const child = spawn(process.execPath, [...nodeFlags(ROOT), ...prof, '--import', 'tsx', script], {
    cwd: ROOT,
    env: serverEnv(DATABASE_URL, port, SERVICE_ENV),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    for (const deadline = Date.now() + 90_000; ; ) {
      if (child.exitCode !== null) throw new Error(`the service exited (${child.exitCode})`);
      if (
        await fetch(`http://127.0.0.1:${port}/health`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break;
      if (Date.now() > deadline) throw new Error('the service did not start');
      await new Promise((r) => setTimeout(r, 250));
    }
    console.log(`server CPU per request, ${REQUESTS} requests per path at ${CONNECTIONS} connections (load average ${loadavg()})`);
    for (const p of paths) {
      if ('explicit' in p ? !ONLY?.includes(p.name) : ONLY && !ONLY.some((text) => p.name.includes(text))) continue;
      const run = (amount: number) =>
        autocannon({ url: `http://127.0.0.1:${port}`, connections: CONNECTIONS, amount, requests: p.requests });
      await run(Math.min(REQUESTS, 1000));
      const before = cpuMs(child.pid!);
      const started = performance.now();
      const result = await run(REQUESTS);
      const cpu = cpuMs(child.pid!) - before;
      const wall = performance.now() - started;
      if (result.non2xx > 0 || result.errors > 0) throw new Error(`${p.name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
      const n = result.requests.total;
      console.log(
        `  ${p.name.padEnd(20)} ${(cpu / n).toFixed(3)} ms CPU/request  (${n} requests, ${((n / wall) * 1000).toFixed(0)} req/s)`,
      );
    }
  } finally {
    child.kill('SIGTERM');
  }
}

const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

main().catch((error: unknown) => {
  console.error(`cpu failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
