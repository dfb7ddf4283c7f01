/**
 * Memory of an export: starts the server on DATABASE_URL (a seeded database, test/bench/README.md),
 * downloads GET /orders/export, reads the server's RSS from /proc every 250 ms while it streams, and
 * prints the figures. The download is read and dropped as it arrives, like a client saving to disk.
 *
 *   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/bench npx tsx test/bench/export-rss.ts
 *   EXPORT_FORMAT=csv|ndjson (ndjson), EXPORT_QUERY (extra filters), EXPORT_SECONDS (stop after; 0 = all)
 *
 * Linux only (reads /proc/<pid>/status).
 */
import { readFileSync } from 'node:fs';
import { startServer } from '../support/server-process.ts';

const url = process.env.DATABASE_URL;
if (!url) throw new Error('set DATABASE_URL to a seeded PostgreSQL database');
const format = process.env.EXPORT_FORMAT ?? 'ndjson';
const query = process.env.EXPORT_QUERY ? `&${process.env.EXPORT_QUERY}` : '';
const maxSeconds = Number(process.env.EXPORT_SECONDS ?? '0');

function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line!.replace(/\D+/g, '')) / 1024;
}

const server = await startServer({ DATABASE_URL: url, LOG_LEVEL: 'warn' });
const pid = server.child.pid!;
try {
  // Warm the process (JIT, pool, first compile of the export document) before the baseline.
  await (await fetch(`${server.base}/orders/export?format=${format}&from=2001-01-01T00:00:00Z&to=2001-01-02T00:00:00Z`)).text();
  const baseline = rssMiB(pid);
  const samples: number[] = [];
  const sampler = setInterval(() => samples.push(rssMiB(pid)), 250);
  const started = performance.now();
  const controller = new AbortController();
  const response = await fetch(`${server.base}/orders/export?format=${format}${query}`, { signal: controller.signal });
  if (response.status !== 200) throw new Error(`export answered ${response.status}: ${await response.text()}`);
  let bytes = 0;
  let lines = 0;
  let lastReport = started;
  let stoppedEarly = false;
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.byteLength;
      for (const byte of chunk) if (byte === 10) lines++;
      const now = performance.now();
      if (now - lastReport > 10_000) {
        lastReport = now;
        console.log(
          `  ${lines} lines, ${(bytes / 2 ** 20).toFixed(0)} MiB, RSS ${rssMiB(pid).toFixed(0)} MiB, ${((now - started) / 1000).toFixed(0)} s`,
        );
      }
      if (maxSeconds > 0 && now - started > maxSeconds * 1000) {
        stoppedEarly = true;
        controller.abort();
        break;
      }
    }
  } catch (error) {
    if (!stoppedEarly) throw error;
  }
  clearInterval(sampler);
  const seconds = (performance.now() - started) / 1000;
  const orders = format === 'csv' ? Math.max(0, lines - 1) : lines;
  const sorted = [...samples].sort((a, b) => a - b);
  console.log(
    JSON.stringify(
      {
        format,
        orders,
        complete: !stoppedEarly,
        mib: Number((bytes / 2 ** 20).toFixed(1)),
        seconds: Number(seconds.toFixed(1)),
        orders_per_sec: Math.round(orders / seconds),
        server_rss_mib: {
          before: Number(baseline.toFixed(1)),
          median: Number(sorted[Math.floor(sorted.length / 2)]!.toFixed(1)),
          peak: Number(sorted[sorted.length - 1]!.toFixed(1)),
        },
      },
      null,
      2,
    ),
  );
} finally {
  await server.kill('SIGTERM');
}
