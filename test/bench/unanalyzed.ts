/**
 * `npm run bench:unanalyzed`: the REST user page on a database the planner knows nothing about, against the
 * same book analyzed. A fresh install, and every month's new partition until autovacuum reaches it, are
 * planned without statistics; the page must hold its plan there (BOTH_INTENTS in src/db/row-store.ts).
 *
 * The never-analyzed side is a copy of the bench database (`<name>_unanalyzed`, made on first use, kept for
 * the next run), migrated, then with every statistic of the orders and intents partitions removed, their sizes unknown
 * (`reltuples` -1, as before any ANALYZE or VACUUM) and autovacuum off for them, so it stays that way. Both
 * sides are measured in turns (load.ts, inTurns), at each of BENCH_CONNECTIONS.
 *
 * Environment: BENCH_DATABASE_URL, BENCH_SECONDS, BENCH_CONNECTIONS (settings.ts); BENCH_UNANALYZED_FRESH=1
 * makes the copy again.
 */
import pg from 'pg';
import { pgTarget } from '../../src/db/database.ts';
import { applyMigrations } from '../../src/db/migrate.ts';
import { type Figures, get, inTurns } from './load.ts';
import { SERVICE_ENV } from './node-flags.ts';
import { start, stopAll } from './processes.ts';
import { DATABASE_URL, FULL_USER_ORDERS, LEVELS, SECONDS } from './settings.ts';

const source = new URL(DATABASE_URL);
const sourceName = source.pathname.slice(1);
const copyName = `${sourceName}_unanalyzed`;
const copy = new URL(DATABASE_URL);
copy.pathname = `/${copyName}`;
const admin = new URL(DATABASE_URL);
admin.pathname = '/postgres';

async function withClient<T>(url: URL, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const exists = await withClient(
  admin,
  async (c) => (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [copyName])).rowCount === 1,
);
if (!exists || process.env.BENCH_UNANALYZED_FRESH === '1') {
  console.log(`copying ${sourceName} to ${copyName} (once; a few minutes for a million orders) ...`);
  await withClient(admin, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${copyName}`);
    await c.query(`CREATE DATABASE ${copyName} TEMPLATE ${sourceName}`);
  });
}
// Migrated first (the service refuses a database with pending migrations), since a migration may analyze.
for (const url of [source, copy]) await withClient(url, (c) => applyMigrations(pgTarget(c)));
await withClient(copy, async (c) => {
  const partitions = (
    await c.query<{ name: string }>(
      `SELECT c.oid::regclass::text AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent IN ('orders'::regclass, 'intents'::regclass)`,
    )
  ).rows.map((r) => r.name);
  for (const name of partitions) await c.query(`ALTER TABLE ${name} SET (autovacuum_enabled = false)`);
  await c.query(`DELETE FROM pg_statistic WHERE starelid IN (SELECT oid FROM pg_class WHERE relname ~ '^(orders|intents)')`);
  await c.query(`UPDATE pg_class SET reltuples = -1, relpages = 0 WHERE relname ~ '^(orders|intents)' AND relkind IN ('r', 'p')`);
});

const users = await withClient(source, async (c) =>
  (
    await c.query<{ user_id: string }>(
      `SELECT user_id FROM orders GROUP BY user_id HAVING count(*) BETWEEN ${FULL_USER_ORDERS} AND ${FULL_USER_ORDERS * 10}
       ORDER BY md5(user_id) LIMIT 2000`,
    )
  ).rows.map((r) => r.user_id),
);
let u = 0;
const userPage = () => [get(() => `/orders/user/${encodeURIComponent(users[u++ % users.length]!)}?limit=20`)];

try {
  const analyzed = await start('service (analyzed)', 'src/server.ts', SERVICE_ENV);
  const unanalyzed = await start('service (never analyzed)', 'src/server.ts', { ...SERVICE_ENV, DATABASE_URL: copy.toString() });
  const show = (f: Figures) => `${f.rps.toFixed(0)}/s, p50 ${f.p50.toFixed(1)} ms, p99 ${f.p99.toFixed(0)} ms`;
  console.log(`REST user page (full pages of 20, ${users.length} users), ${SECONDS} s per side in turns`);
  for (const connections of LEVELS) {
    const [never, known] = await inTurns(
      { port: unanalyzed.port, requests: userPage },
      { port: analyzed.port, requests: userPage },
      connections,
    );
    console.log(
      `${connections} connections: never analyzed ${show(never)}; analyzed ${show(known)}; ${(never.rps / known.rps).toFixed(2)}x (target >= 0.7x)`,
    );
  }
} finally {
  stopAll();
}
