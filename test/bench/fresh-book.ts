/**
 * Creates on a book that grows from empty: a fresh install, or this month's partition on its first day. The
 * bench drops and creates its own database (BENCH_FRESH_DATABASE, default `bench_fresh`, on
 * BENCH_FRESH_ADMIN_URL), migrates it, starts the service from src/ (through tsx, as cpu.ts does; SERVICE_ROOT
 * measures another checkout), and loads quote + order pairs at BENCH_CONNECTIONS (10) for BENCH_FRESH_WINDOWS
 * (6) windows of BENCH_SECONDS (10). Per window it prints the pairs per second and how the creates read this
 * month's intents partition and the quotes: whole-table scans against index scans (pg_stat_user_tables). A rate
 * that falls window after window, with whole-table scans growing, is a plan made while the tables were empty
 * and kept (src/db/planner-statistics.ts says why).
 *
 *   npx tsx test/bench/fresh-book.ts
 */
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { quoteThenOrder } from './create-floor.ts';
import { SERVICE_ENV } from './node-flags.ts';
import { recreateDatabase, start } from './processes.ts';

const ROOT = process.env.SERVICE_ROOT ?? fileURLToPath(new URL('../../', import.meta.url));
const ADMIN_URL = process.env.BENCH_FRESH_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const DATABASE = process.env.BENCH_FRESH_DATABASE ?? 'bench_fresh';
const DATABASE_URL = ADMIN_URL.replace(/\/[^/]*$/, `/${DATABASE}`);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WINDOWS = Number(process.env.BENCH_FRESH_WINDOWS ?? 6);

interface Scans {
  seq: number;
  idx: number;
  inserted: number;
}

async function main() {
  await recreateDatabase(ADMIN_URL, DATABASE_URL, ROOT);
  const service = await start('the service', 'src/server.ts', SERVICE_ENV, { root: ROOT, databaseUrl: DATABASE_URL });
  const port = service.port;
  const db = new pg.Client({ connectionString: DATABASE_URL });
  try {
    await db.connect();
    const now = new Date();
    const partition = `intents_${now.getUTCFullYear()}_${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
    // Each connection reports its counters late (up to ten seconds when idle): wait for its inserts.
    const scans = async (table: string, inserted: number): Promise<Scans> => {
      for (let tries = 0; ; tries++) {
        const { rows } = await db.query(
          'SELECT seq_scan AS seq, coalesce(idx_scan, 0) AS idx, n_tup_ins AS inserted FROM pg_stat_user_tables WHERE relname = $1',
          [table],
        );
        const found = { seq: Number(rows[0]?.seq ?? 0), idx: Number(rows[0]?.idx ?? 0), inserted: Number(rows[0]?.inserted ?? 0) };
        if (found.inserted >= inserted || tries > 60) return found;
        await new Promise((r) => setTimeout(r, 250));
      }
    };
    console.log(`creates on a book growing from empty: ${CONNECTIONS} connections, ${WINDOWS} windows of ${SECONDS} s`);
    console.log('window | pairs/s | orders in the book | intents partition: whole / index scans | quotes: whole / index scans');
    let orders = 0;
    let last = { intents: await scans(partition, 0), quotes: await scans('quotes', 0) };
    for (let w = 1; w <= WINDOWS; w++) {
      const result = await autocannon({
        url: `http://127.0.0.1:${port}`,
        connections: CONNECTIONS,
        duration: SECONDS,
        requests: quoteThenOrder(),
      });
      if (result.non2xx > 0 || result.errors > 0) throw new Error(`${result.non2xx} non-2xx answers, ${result.errors} errors`);
      const pairs = Math.floor(result.requests.total / 2);
      orders += pairs;
      // Slack of a connection's worth: pairs of the window that were still in flight when it was counted.
      const now = { intents: await scans(partition, 2 * (orders - CONNECTIONS)), quotes: await scans('quotes', orders - CONNECTIONS) };
      const delta = (table: 'intents' | 'quotes') =>
        `${(now[table].seq - last[table].seq).toLocaleString('en-US')} / ${(now[table].idx - last[table].idx).toLocaleString('en-US')}`;
      console.log(`${w} | ${(pairs / SECONDS).toFixed(0)} | ${orders.toLocaleString('en-US')} | ${delta('intents')} | ${delta('quotes')}`);
      last = now;
    }
  } finally {
    await db.end().catch(() => undefined);
    await service.stop();
  }
}

main().catch((error: unknown) => {
  console.error(`fresh-book failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
