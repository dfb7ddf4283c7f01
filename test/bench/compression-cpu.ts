/**
 * Server CPU per request with and without response compression (src/http/response-compression.ts): the
 * same requests, with Accept-Encoding: gzip, br, against a service started with COMPRESS_RESPONSES=true and
 * then false. CPU from /proc/<pid>/stat, as test/bench/cpu.ts. Needs no bench database: the service runs on
 * its embedded database in a temporary directory, and the paths answer the same on an empty book.
 *
 *   npx tsx test/bench/compression-cpu.ts        (CPU_REQUESTS, default 2000)
 *
 * Linux only (/proc).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../support/server-process.ts';
import { nodeFlags, SERVICE_ENV } from './node-flags.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const REQUESTS = Number(process.env.CPU_REQUESTS ?? 2000);
const CONCURRENCY = 10;
const TICK_MS = 1000 / 100; // USER_HZ

const PATHS = [
  { name: 'GET /openapi.json', path: '/openapi.json', headers: {} },
  {
    name: 'GraphQL introspection',
    path: `/graphql?query=${encodeURIComponent('{ __schema { types { name description fields { name description } } } }')}`,
    headers: { accept: 'application/json' },
  },
];

function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

async function measure(compress: boolean) {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'compression-bench-'));
  const child = spawn(process.execPath, [...nodeFlags(ROOT), '--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...SERVICE_ENV, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', COMPRESS_RESPONSES: String(compress) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    for (
      const deadline = Date.now() + 90_000;
      !(await fetch(`${base}/health`).then(
        (r) => r.ok,
        () => false,
      ));
    ) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error('the service did not start');
      await new Promise((r) => setTimeout(r, 250));
    }
    for (const p of PATHS) {
      let bytes = 0;
      const run = async (count: number) => {
        let left = count;
        await Promise.all(
          Array.from({ length: CONCURRENCY }, async () => {
            while (left-- > 0) {
              const response = await fetch(`${base}${p.path}`, { headers: { ...p.headers, 'accept-encoding': 'gzip, br' } });
              if (!response.ok) throw new Error(`${p.name}: ${response.status}`);
              // fetch decodes the body: count what came over the wire from the headers instead.
              bytes = Number(response.headers.get('content-length') ?? 0) || bytes;
              await response.arrayBuffer();
            }
          }),
        );
      };
      await run(Math.min(REQUESTS, 500));
      const before = cpuMs(child.pid!);
      await run(REQUESTS);
      const cpu = cpuMs(child.pid!) - before;
      console.log(
        `  ${compress ? 'compressed  ' : 'uncompressed'} ${p.name.padEnd(22)} ${(cpu / REQUESTS).toFixed(3)} ms CPU/request, ${bytes} bytes per answer`,
      );
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

console.log(`server CPU per request, ${REQUESTS} requests per path, Accept-Encoding: gzip, br`);
await measure(true);
await measure(false);
