/**
 * The create path's floor: the same logical work as one quote and its order, in plain SQL, run by pgbench.
 * A script run inserts a quote; then, in one transaction, consumes it (an UPDATE that matches only while it is
 * unconsumed) and inserts the order and its two intents. The tables live in their own schema, `create_floor`,
 * in the bench database: the service's columns and types (CREATE TABLE ... LIKE), its primary keys, and the
 * uniqueness it enforces (a quote consumed once; order ids, quote ids, commitment hashes and swap ids unique,
 * which the service keeps in its key tables), as plain tables: no partitions, no triggers, no rollups, no
 * outbox, no secondary indexes. The values are the ones the service stores for the bench's own pair (QUOTE_BODY,
 * orderBody), the ids drawn anew by each run. The ratio is the service's pairs/s over pgbench's transactions/s.
 *
 *   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/bench tsx test/bench/create-floor.ts   (prints the script, runs pgbench)
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type autocannon from 'autocannon';
import pg from 'pg';

export const BTC_ADDRESS = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';
export const EVM_ADDRESS = '0x4c1a6f5963Caa654d1D7C6D76F9d34aE10C86cb3';

/** The bench's quote: the same request every time. */
export const QUOTE_BODY = { source: { asset: 'bitcoin:btc', amount: '1000000' }, destination: { asset: 'ethereum:wbtc' } };

export interface QuoteReply {
  quote_id: string;
  destination: { amount: string };
}

/** A new user's order on `quote`, with a fresh commitment. */
export const orderBody = (quote: QuoteReply) => ({
  user_id: `bench-${randomBytes(3).toString('hex')}`,
  quote_id: quote.quote_id,
  source: { asset: 'bitcoin:btc', recipient: BTC_ADDRESS, amount: '1000000' },
  destination: { asset: 'ethereum:wbtc', recipient: EVM_ADDRESS, amount: quote.destination.amount },
  commitment_hash: randomBytes(32).toString('hex'),
});

/** POST /quotes then POST /orders with that quote, per connection, over and over. */
export function quoteThenOrder(): autocannon.Request[] {
  return [
    {
      method: 'POST',
      path: '/quotes',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(QUOTE_BODY),
      onResponse: (_status, body, context) => void (context.quote = (JSON.parse(body) as { result: QuoteReply }).result),
    },
    {
      method: 'POST',
      path: '/orders',
      headers: { 'content-type': 'application/json' },
      setupRequest: (req, context) => ({ ...req, body: JSON.stringify(orderBody(context.quote as QuoteReply)) }),
    },
  ];
}

export const PGBENCH = process.env.PGBENCH ?? '/usr/bin/pgbench';
export const SCRIPT_PATH = fileURLToPath(new URL('./create-pair.pgbench', import.meta.url));
export const SIGNED_SCRIPT_PATH = fileURLToPath(new URL('./create-pair-signed.pgbench', import.meta.url));
export const FLOOR_SCHEMA = 'create_floor';

/** The floor's tables, made afresh (dropped first): each run starts from empty tables. */
export async function createFloorTables(databaseUrl: string): Promise<void> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    await db.query(`DROP SCHEMA IF EXISTS ${FLOOR_SCHEMA} CASCADE; CREATE SCHEMA ${FLOOR_SCHEMA};
      CREATE TABLE ${FLOOR_SCHEMA}.quotes (LIKE public.quotes INCLUDING DEFAULTS, PRIMARY KEY (id));
      CREATE UNIQUE INDEX ON ${FLOOR_SCHEMA}.quotes (consumed_by) WHERE consumed_by IS NOT NULL;
      CREATE TABLE ${FLOOR_SCHEMA}.intents (LIKE public.intents INCLUDING DEFAULTS, PRIMARY KEY (swap_id, created_at), UNIQUE (swap_id));
      CREATE TABLE ${FLOOR_SCHEMA}.orders (LIKE public.orders INCLUDING DEFAULTS, PRIMARY KEY (id, created_at), UNIQUE (id),
        UNIQUE (quote_id), UNIQUE (commitment_hash));
      CREATE UNIQUE INDEX ON ${FLOOR_SCHEMA}.orders (created_at DESC, id DESC);`);
  } finally {
    await db.end();
  }
}

/** A 64-hex id from the run's random number and a tag (pgbench has no string variables). */
const hex64 = (tag: string) => `md5(:r::text || '${tag}') || md5('${tag}' || :r::text)`;

/** A text literal; pgbench reads `:name` as a variable, in literals too, so a colon goes in as an escape. */
const lit = (text: string) => (text.includes(':') ? `E'${text.replace(/:/g, '\\x3a')}'` : `'${text}'`);

const BTC_SOLVER = 'bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3';
const WBTC = '0x2260FAC5E5542a773Aa44fBCfeDf7C193bc2C599';

/**
 * One quote + order pair in plain SQL, with the values the service stores for the bench's pair (QUOTE_BODY, orderBody).
 * `stored` (the floor the ratio is against): the quote inserted when it is made, then consumed by an UPDATE in the
 * order's transaction. `signed`: the service's own design (src/domain/signed-quotes.ts), where making a quote
 * writes nothing and the order's transaction inserts the quote as consumed; printed beside the ratio, so the
 * service is also seen against the plain SQL of the work it does.
 */
export function floorScript(variant: 'stored' | 'signed' = 'stored'): string {
  const t = FLOOR_SCHEMA;
  const solver = lit(JSON.stringify({ bitcoin: BTC_SOLVER, ethereum: EVM_ADDRESS }));
  const [btc, wbtc] = [lit('bitcoin:btc'), lit('ethereum:wbtc')];
  const commitment = hex64('c');
  const now = 'now()';
  const intents = [
    [hex64('s'), "'source'", "'bitcoin'", btc, "'primary'", lit(BTC_ADDRESS), lit(BTC_SOLVER), '1000000', commitment, '1795635559', 'NULL'],
    [
      hex64('d'),
      "'destination'",
      "'ethereum'",
      wbtc,
      lit(WBTC),
      lit(EVM_ADDRESS),
      lit(EVM_ADDRESS),
      '998080',
      commitment,
      '1795592359',
      lit('0x5859a88c08e2B7e075FeaA698A488e087f521123'),
    ],
  ].map((values) => `(${[...values, now, now].join(', ')})`);
  const order = [
    hex64('o'),
    "'bench-' || :r",
    "'q_' || :r",
    '64250.12',
    '64180.55',
    '30',
    commitment,
    hex64('h'),
    "now() + interval '1 hour'",
    "now() + interval '12 hours'",
    "'bitcoin'",
    "'ethereum'",
    btc,
    wbtc,
    '642.5012',
    hex64('s'),
    hex64('d'),
    now,
    now,
  ];
  const quoteColumns =
    'id, source_asset, source_amount, dest_asset, dest_amount, source_token_price, dest_token_price, fee_bips, solver, created_at, expires_at';
  const quoteValues = `'q_' || :r, ${btc}, 1000000, ${wbtc}, 998080, 64250.12, 64180.55, 30, ${solver}, now(), now() + interval '5 minutes'`;
  const quote =
    variant === 'stored'
      ? [
          `INSERT INTO ${t}.quotes (${quoteColumns}) VALUES (${quoteValues});`,
          'BEGIN;',
          `UPDATE ${t}.quotes SET consumed_by = ${hex64('o')} WHERE id = 'q_' || :r AND consumed_by IS NULL;`,
        ]
      : ['BEGIN;', `INSERT INTO ${t}.quotes (${quoteColumns}, consumed_by) VALUES (${quoteValues}, ${hex64('o')});`];
  return [
    `-- Written by test/bench/create-floor.ts: one run is one quote and its order, in plain SQL (${variant} quotes).`,
    '\\set r random(1, 999999999999999)',
    ...quote,
    `INSERT INTO ${t}.intents (swap_id, side, chain, asset, token_address, creator, recipient, amount, commitment_hash, cancel_after, registry_address, created_at, updated_at) ` +
      `VALUES ${intents.join(', ')};`,
    `INSERT INTO ${t}.orders (id, user_id, quote_id, source_token_price, dest_token_price, fee_bips, commitment_hash, request_hash, deadline_at, dest_expires_at, source_chain, dest_chain, source_asset, dest_asset, volume_usd, source_swap_id, destination_swap_id, created_at, updated_at) ` +
      `VALUES (${order.join(', ')});`,
    'COMMIT;',
    '',
  ].join('\n');
}

/** Rows in the floor's orders table: every script run must have written one. */
export async function floorOrders(db: pg.Client): Promise<number> {
  return (await db.query(`SELECT count(*)::int AS n FROM ${FLOOR_SCHEMA}.orders`)).rows[0].n as number;
}

export function writeFloorScript(variant: 'stored' | 'signed' = 'stored'): string {
  const path = variant === 'stored' ? SCRIPT_PATH : SIGNED_SCRIPT_PATH;
  writeFileSync(path, floorScript(variant));
  return path;
}

/**
 * A load generator run to its end, with its output and its CPU (user + system, ms): run through sh, whose `times`
 * prints the shell's own times, then its children's ("0m1.234s 0m0.567s").
 */
export async function runLoadGenerator(command: string, args: string[]): Promise<{ stdout: string; cpuMs: number }> {
  const { stdout } = await promisify(execFile)('/bin/sh', ['-c', '"$0" "$@"; status=$?; times; exit $status', command, ...args], {
    maxBuffer: 16 * 1024 * 1024,
  });
  const children = [...stdout.matchAll(/(\d+)m([\d.]+)s (\d+)m([\d.]+)s/g)].at(-1);
  const cpuMs = children
    ? (Number(children[1]) * 60 + Number(children[2]) + Number(children[3]) * 60 + Number(children[4])) * 1000
    : Number.NaN;
  return { stdout, cpuMs };
}

/** pgbench over `script`: transactions/s (without connection time), latency average, and the run's transactions. */
export async function runPgbench(databaseUrl: string, scriptPath: string, clients: number, seconds: number) {
  const { stdout, cpuMs } = await runLoadGenerator(PGBENCH, [
    // Prepared, as the service prepares each statement once per connection (src/db/prepared-statements.ts).
    '-n',
    '-M',
    'prepared',
    '-c',
    String(clients),
    '-j',
    String(Math.min(clients, 2)),
    '-T',
    String(seconds),
    '-f',
    scriptPath,
    databaseUrl,
  ]);
  const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(stdout);
  const latency = /latency average = ([\d.]+) ms/.exec(stdout);
  const failed = /number of failed transactions: (\d+)/.exec(stdout);
  const processed = /number of transactions actually processed: (\d+)/.exec(stdout);
  if (!tps) throw new Error(`pgbench printed no tps:\n${stdout}`);
  if (failed && Number(failed[1]) > 0) throw new Error(`pgbench: ${failed[1]} failed transactions:\n${stdout}`);
  return {
    tps: Number(tps[1]),
    latencyMs: latency ? Number(latency[1]) : Number.NaN,
    transactions: Number(processed?.[1] ?? 0),
    clientCpuMs: cpuMs,
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const url = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/bench';
  await createFloorTables(url);
  console.log(floorScript());
  const result = await runPgbench(url, writeFloorScript(), 8, Number(process.env.BENCH_SECONDS ?? 10));
  console.log(`pgbench, 8 clients: ${result.tps.toFixed(0)} transactions/s, latency average ${result.latencyMs} ms`);
}

/** A load generator's GraphQL request, with variables drawn anew for each request sent. */
export function graphqlLoad(query: string, variables: () => Record<string, unknown>): autocannon.Request {
  return {
    method: 'POST',
    path: '/graphql',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables: variables() }),
    setupRequest: (req) => ({ ...req, body: JSON.stringify({ query, variables: variables() }) }),
  };
}
