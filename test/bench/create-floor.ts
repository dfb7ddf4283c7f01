/**
 * The create path's floor: pgbench running the very statements the service sends for one quote and its order
 * (POST /quotes, then POST /orders). They are captured from the real app, in-process, so the floor follows
 * whatever the code sends (src/db/row-store.ts, src/domain/orders.ts); the ids that must be unique (quote,
 * order, swap ids, webhook message, hashes) become expressions of a pgbench random number, so every run of
 * the script is a new quote and order. The script is written to test/bench/create-pair.pgbench (git-ignored) for reading;
 * one run of it is one quote + order pair, so the bench's ratio is pairs/s over pgbench's transactions/s.
 *
 *   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/bench tsx test/bench/create-floor.ts   (writes the script, runs pgbench)
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type autocannon from 'autocannon';
import { loadConfig } from '../../src/config.ts';
import { openPostgres } from '../../src/db/database.ts';
import { createLogger } from '../../src/logger.ts';
import { createRuntime } from '../../src/runtime.ts';

const BTC_ADDRESS = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';
const EVM_ADDRESS = '0x4c1a6f5963Caa654d1D7C6D76F9d34aE10C86cb3';

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

/** A value that must differ on every run: a quote, order, swap or message id, or a 64-hex hash. */
const UNIQUE = /^(q_|msg_)[A-Za-z0-9_-]{12,}$|^[0-9a-f]{64}$/;

function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'boolean' || typeof value === 'number') return String(value);
  const text = String(value);
  // The last 12 characters become the run's random number (digits are valid hex and base64url).
  if (UNIQUE.test(text)) return `('${text.slice(0, -12)}' || lpad(:r::text, 12, '0'))`;
  const quoted = text.replace(/'/g, "''");
  // pgbench reads `:name` as a variable, in literals too: a colon goes in as an escape (\x3a).
  return quoted.includes(':') ? `E'${quoted.replace(/\\/g, '\\\\').replace(/:/g, '\\x3a')}'` : `'${quoted}'`;
}

/** One statement with its parameters written in, as pgbench sends it. */
function inline(sql: string, params: unknown[]): string {
  // One line per statement: the SQL's own comments go first, or they would swallow the rest of it.
  const code = sql.replace(/--[^\n]*/g, '');
  return code
    .replace(/\$(\d+)/g, (_, n: string) => literal(params[Number(n) - 1]))
    .replace(/\s+/g, ' ')
    .trim();
}

export interface PairScript {
  script: string;
  /** The statements a pair sends, in order (first words), for the report. */
  statements: string[];
}

/** Runs one quote and one order through the app in-process and turns the SQL they sent into a pgbench script. */
export async function capturePairScript(databaseUrl: string): Promise<PairScript> {
  const captured: { sql: string; params: unknown[] }[] = [];
  const db = await openPostgres({
    url: databaseUrl,
    onQuery: (sql, params) => captured.push({ sql, params: JSON.parse(params || '[]') as unknown[] }),
  });
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_IP: '1000000000',
    RATE_LIMIT_PER_KEY: '1000000000',
  });
  const runtime = createRuntime({ config, db, logger: createLogger('silent') });
  try {
    const post = async (path: string, body: unknown) => {
      const reply = await runtime.app.fetch(`http://bench${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await reply.text();
      if (!reply.ok) throw new Error(`${path}: ${reply.status} ${text.slice(0, 300)}`);
      return JSON.parse(text) as { result: unknown };
    };
    // Warm up first (the registry, prices, prepared plans): only the second pair's statements are kept.
    await post('/orders', orderBody((await post('/quotes', QUOTE_BODY)).result as QuoteReply));
    captured.length = 0;
    await post('/orders', orderBody((await post('/quotes', QUOTE_BODY)).result as QuoteReply));
  } finally {
    await runtime.stop();
    await db.close();
  }
  const sent = captured.filter((s) => /^\s*(SELECT|WITH|INSERT|UPDATE|DELETE)\b/i.test(s.sql));
  if (sent.length === 0) throw new Error('the create path sent no SQL the bench could see');
  const lines = [
    '-- Generated by test/bench/create-floor.ts from the SQL the service sent for one POST /quotes and one',
    '-- POST /orders; regenerated by every `npm run bench`. One run of this script is one quote + order pair.',
    '\\set r random(1, 999999999999)',
    ...sent.map((s) => `${inline(s.sql, s.params)};`),
  ];
  return { script: `${lines.join('\n')}\n`, statements: sent.map((s) => s.sql.trim().split(/\s+/)[0]!.toUpperCase()) };
}

/** pgbench over `script`: transactions/s (without connection time) and latency average. */
export async function runPgbench(databaseUrl: string, scriptPath: string, clients: number, seconds: number) {
  const { stdout } = await promisify(execFile)(
    PGBENCH,
    [
      '-n',
      // Prepared, as the service prepares each statement once per connection (src/db/prepared-statements.ts).
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
    ],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(stdout);
  const latency = /latency average = ([\d.]+) ms/.exec(stdout);
  const failed = /number of failed transactions: (\d+)/.exec(stdout);
  if (!tps) throw new Error(`pgbench printed no tps:\n${stdout}`);
  if (failed && Number(failed[1]) > 0) throw new Error(`pgbench: ${failed[1]} failed transactions:\n${stdout}`);
  return { tps: Number(tps[1]), latencyMs: latency ? Number(latency[1]) : Number.NaN };
}

export function writePairScript(pair: PairScript): string {
  writeFileSync(SCRIPT_PATH, pair.script);
  return SCRIPT_PATH;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const url = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/bench';
  const pair = await capturePairScript(url);
  console.log(pair.script);
  const result = await runPgbench(url, writePairScript(pair), 8, Number(process.env.BENCH_SECONDS ?? 10));
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
