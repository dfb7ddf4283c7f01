/**
 * `npm run bench`: the service against the floor (node:http + pg, ./floor.ts) and the peer
 * (PostGraphile, ./postgraphile.ts), over one PostgreSQL database holding a seeded book, in one run.
 * Prints req/s and p50/p99 latency for each path, and each ratio beside its target.
 *
 *   npm run seed -- --orders 1000000 --users 100000 --days 180   (with DATABASE_URL=$BENCH_DATABASE_URL)
 *   npm run bench
 *
 * Environment: BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/bench), BENCH_SECONDS
 * per measurement (default 10), BENCH_CONNECTIONS (default 10), BENCH_MIN_ORDERS (default 1000000),
 * BENCH_ONLY (measure only the paths whose name contains one of these comma-separated texts; while
 * working on one path), BENCH_TRACE (print each cold /stats request's time).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { explainHotPaths } from './explain.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/bench';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const MIN_ORDERS = Number(process.env.BENCH_MIN_ORDERS ?? 1_000_000);
const ONLY = process.env.BENCH_ONLY?.split(',').filter(Boolean);
/** How deep the deep pages go: 100,000 orders, or half of a smaller book. */
let DEEP_OFFSET = 100_000;
const PORTS = { ours: 4000, oursCold: 4001, floor: 4100, postgraphile: 4200 };

interface Figures {
  rps: number;
  p50: number;
  p99: number;
}

// ---------------------------------------------------------------------------------------------
// Processes

const children: ChildProcess[] = [];

async function start(name: string, script: string, port: number, env: Record<string, string> = {}): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL, PORT: String(port), HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  children.push(child);
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}): ${stderr.slice(-2000)}`);
    const up = await fetch(`http://127.0.0.1:${port}/health`).then(
      () => true,
      () => false,
    );
    if (up) return;
    if (Date.now() > deadline) throw new Error(`${name} did not start within 60 s: ${stderr.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function stopAll(): void {
  for (const child of children) child.kill('SIGTERM');
}
process.on('exit', stopAll);
process.on('SIGINT', () => process.exit(130));

// ---------------------------------------------------------------------------------------------
// Load

type Request = autocannon.Request;
const graphqlErrors: string[] = [];

/** A closed-loop load of CONNECTIONS connections for SECONDS (after a 2 s warm-up); every answer must be 2xx. */
async function load(port: number, requests: Request[], seconds = SECONDS): Promise<Figures & { requests: number }> {
  const run = (duration: number) =>
    autocannon({
      url: `http://127.0.0.1:${port}`,
      connections: CONNECTIONS,
      duration,
      requests,
    });
  await run(2);
  const result = await run(seconds);
  if (graphqlErrors.length > 0) throw new Error(`port ${port}: ${graphqlErrors.length} GraphQL errors, first: ${graphqlErrors[0]}`);
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(`port ${port} ${requests[0]?.path}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`);
  }
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, requests: result.requests.total };
}

/** One request at a time, `count` times, `gapMs` apart: latency of what a cache does not hide. */
async function sequential(url: string, count: number, gapMs: number): Promise<Figures> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const reply = await fetch(url);
    if (!reply.ok) throw new Error(`${url}: ${reply.status} ${await reply.text()}`);
    await reply.arrayBuffer();
    const elapsed = performance.now() - started;
    times.push(elapsed);
    if (process.env.BENCH_TRACE) console.log(`    ${url}: ${elapsed.toFixed(1)} ms`);
    await new Promise((r) => setTimeout(r, gapMs));
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  return { rps: 1000 / (times.reduce((a, b) => a + b, 0) / times.length), p50: at(0.5), p99: at(0.99) };
}

const get = (path: string | (() => string)): Request =>
  typeof path === 'string' ? { method: 'GET', path } : { method: 'GET', path: path(), setupRequest: (req) => ({ ...req, path: path() }) };

const graphql = (query: string, variables: () => Record<string, unknown>): Request => ({
  method: 'POST',
  path: '/graphql',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ query, variables: variables() }),
  setupRequest: (req) => ({ ...req, body: JSON.stringify({ query, variables: variables() }) }),
  // A GraphQL error comes with a 200: count it, and fail the measurement.
  onResponse: (status, body) => {
    if (status === 200 && body.includes('"errors"')) graphqlErrors.push(body.slice(0, 500));
  },
});

// ---------------------------------------------------------------------------------------------
// The work

const INTENT = `swapId chain asset tokenAddress creator recipient amount commitmentHash commitment cancelAfter
  registryAddress createTxHash createBlockNumber createTimestamp claimTxHash claimBlockNumber claimTimestamp
  cancelTxHash cancelBlockNumber cancelTimestamp l1Hop hopBridgeFactory hopDestBlockchainId hopRecipient hopFeeToken
  hopRelayerFee finalChain finalTokenAddress bridgeTxHash createdAt updatedAt`;
const OURS_ORDER = `orderId userId quoteId status sourceTokenPrice destTokenPrice feeBips createdAt updatedAt
  sourceIntent { ${INTENT} } destinationIntent { ${INTENT} }`;
const PEER_ORDER = `id userId quoteId stage sourceTokenPrice destTokenPrice feeBips createdAt updatedAt
  intentBySourceSwapId { ${INTENT} } intentByDestinationSwapId { ${INTENT} }`;

const Q = {
  oursUserPage: `query($u: String!) { ordersByUser(userId: $u, limit: 20) { total data { ${OURS_ORDER} } } }`,
  peerUserPage: `query($u: String!) { allOrders(condition: { userId: $u }, orderBy: [CREATED_AT_DESC, ID_DESC], first: 20) {
    totalCount nodes { ${PEER_ORDER} } } }`,
  oursStatusPage: `query { orders(filter: { status: [COMPLETED] }, limit: 20) { total data { ${OURS_ORDER} } } }`,
  peerStatusPage: `query { allOrders(condition: { stage: COMPLETED }, orderBy: [CREATED_AT_DESC, ID_DESC], first: 20) {
    totalCount nodes { ${PEER_ORDER} } } }`,
  oursOffset: `query($page: Int!) { orders(page: $page, limit: 20) { total data { ${OURS_ORDER} } } }`,
  peerOffset: `query($offset: Int!) { allOrders(orderBy: [CREATED_AT_DESC, ID_DESC], first: 20, offset: $offset) {
    totalCount nodes { ${PEER_ORDER} } } }`,
  oursKeyset: `query($after: String!) { ordersConnection(first: 20, after: $after) { edges { node { ${OURS_ORDER} } } pageInfo { endCursor } } }`,
  peerKeyset: `query($after: Cursor!) { allOrders(orderBy: [CREATED_AT_DESC, ID_DESC], first: 20, after: $after) {
    nodes { ${PEER_ORDER} } pageInfo { endCursor } } }`,
};

const BTC_ADDRESS = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';
const EVM_ADDRESS = '0x4c1a6f5963Caa654d1D7C6D76F9d34aE10C86cb3';

const QUOTE_BODY = { source: { asset: 'bitcoin:btc', amount: '1000000' }, destination: { asset: 'ethereum:wbtc' } };

interface QuoteReply {
  quote_id: string;
  destination: { amount: string };
}

/** A new user's order on `quote`, with a fresh commitment. */
const orderBody = (quote: QuoteReply) => ({
  user_id: `bench-${randomBytes(3).toString('hex')}`,
  quote_id: quote.quote_id,
  source: { asset: 'bitcoin:btc', recipient: BTC_ADDRESS, amount: '1000000' },
  destination: { asset: 'ethereum:wbtc', recipient: EVM_ADDRESS, amount: quote.destination.amount },
  commitment_hash: randomBytes(32).toString('hex'),
});

/** POST /quotes then POST /orders with that quote, per connection, over and over. */
function quoteThenOrder(): Request[] {
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

// ---------------------------------------------------------------------------------------------
// Report

interface Row {
  path: string;
  ours: Figures;
  floor?: Figures;
  peer?: Figures;
  /** What the ratio must reach, and against whom. */
  target?: { against: 'floor' | 'peer'; ratio: number };
  note?: string;
}

const ms = (v: number) => (v >= 100 ? v.toFixed(0) : v.toFixed(1));
const cell = (f?: Figures) =>
  f ? `${f.rps.toFixed(0).padStart(6)} req/s  p50 ${ms(f.p50).padStart(5)}  p99 ${ms(f.p99).padStart(5)} ms` : '—'.padEnd(42);
const ratio = (a: Figures, b?: Figures) => (b ? `${(a.rps / b.rps).toFixed(2)}x` : '—');

function report(rows: Row[]): boolean {
  let allMet = true;
  console.log(
    `\n${'path'.padEnd(44)} ${'service'.padEnd(42)} ${'floor (node:http + pg)'.padEnd(42)} vs floor  ${'PostGraphile 4'.padEnd(42)} vs peer  target`,
  );
  for (const row of rows) {
    let target = '';
    if (row.target) {
      const other = row.target.against === 'floor' ? row.floor : row.peer;
      const met = other !== undefined && row.ours.rps / other.rps >= row.target.ratio;
      allMet &&= met;
      target = `>= ${row.target.ratio}x ${row.target.against}: ${met ? 'met' : 'NOT MET'}`;
    }
    if (row.note) target = [target, row.note].filter(Boolean).join('; ');
    console.log(
      `${row.path.padEnd(44)} ${cell(row.ours)} ${cell(row.floor)} ${ratio(row.ours, row.floor).padStart(8)}  ${cell(row.peer)} ${ratio(row.ours, row.peer).padStart(7)}  ${target}`,
    );
  }
  return allMet;
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const db = new pg.Client({ connectionString: DATABASE_URL });
  await db.connect();
  const [{ orders }] = (await db.query(`SELECT count(*)::int AS orders FROM orders`)).rows;
  if (orders < MIN_ORDERS) {
    throw new Error(
      `${DATABASE_URL} holds ${orders} orders, fewer than ${MIN_ORDERS}. Seed it first:\n` +
        `  DATABASE_URL=${DATABASE_URL} npm run seed -- --orders 1000000 --users 100000 --days 180\n` +
        `(or set BENCH_MIN_ORDERS to bench a smaller book)`,
    );
  }
  DEEP_OFFSET = Math.min(DEEP_OFFSET, Math.floor(orders / 40) * 20);
  const pkg = (dir: string, name: string) =>
    JSON.parse(readFileSync(new URL(`${dir}node_modules/${name}/package.json`, import.meta.url), 'utf8')).version as string;
  const [{ server_version: pgVersion }] = (await db.query('SHOW server_version')).rows;
  console.log(
    `machine: ${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), ${Math.round(os.totalmem() / 2 ** 30)} GiB; ` +
      `node ${process.version}; PostgreSQL ${pgVersion}; autocannon ${pkg('./', 'autocannon')}, postgraphile ${pkg('./', 'postgraphile')}, ` +
      `graphql-yoga ${pkg('../../', 'graphql-yoga')}, @prisma/client ${pkg('../../', '@prisma/client')}`,
  );
  console.log(`book: ${orders} orders; ${CONNECTIONS} connections, ${SECONDS} s per measurement after a 2 s warm-up`);

  const users = (await db.query(`SELECT user_id FROM stats_users ORDER BY md5(user_id) LIMIT 500`)).rows.map((r) => r.user_id as string);
  const [deep] = (await db.query(`SELECT created_at, id FROM orders ORDER BY created_at DESC, id DESC OFFSET $1 LIMIT 1`, [DEEP_OFFSET]))
    .rows;
  await db.end();
  let u = 0;
  const nextUser = () => users[u++ % users.length]!;
  // Cursors just past DEEP_OFFSET orders, in each server's own format.
  const oursCursor = Buffer.from(`GPC:T:${JSON.stringify([`D:${deep.created_at.getTime()}`, `S:${deep.id}`])}`).toString('base64');
  const floorCursor = Buffer.from(`${deep.created_at.toISOString()}|${deep.id}`).toString('base64url');

  console.log('starting the service, a second instance with a 1 s stats cache, the floor and PostGraphile ...');
  const service = { NODE_ENV: 'production', LOG_LEVEL: 'warn', RATE_LIMIT_PER_IP: '1000000000', RATE_LIMIT_PER_KEY: '1000000000' };
  await start('service', 'src/server.ts', PORTS.ours, service);
  await start('service (cold stats)', 'src/server.ts', PORTS.oursCold, { ...service, STATS_CACHE_SECONDS: '1' });
  await start('floor', 'test/bench/floor.ts', PORTS.floor);
  await start('postgraphile', 'test/bench/postgraphile.ts', PORTS.postgraphile);
  const peerCursor = await (async () => {
    const reply = await fetch(`http://127.0.0.1:${PORTS.postgraphile}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `{ allOrders(orderBy: [CREATED_AT_DESC, ID_DESC], first: 1, offset: ${DEEP_OFFSET}) { pageInfo { endCursor } } }`,
      }),
    });
    return ((await reply.json()) as { data: { allOrders: { pageInfo: { endCursor: string } } } }).data.allOrders.pageInfo.endCursor;
  })();

  const rows: Row[] = [];
  const measure = async (
    row: Omit<Row, 'ours' | 'floor' | 'peer'>,
    ours: () => Promise<Figures>,
    floor?: () => Promise<Figures>,
    peer?: () => Promise<Figures>,
  ) => {
    if (ONLY && !ONLY.some((text) => row.path.includes(text))) return;
    process.stdout.write(`  ${row.path} ...`);
    const result: Row = { ...row, ours: await ours(), floor: await floor?.(), peer: await peer?.() };
    rows.push(result);
    process.stdout.write(` ${result.ours.rps.toFixed(0)} req/s\n`);
  };
  const userPath = () => `/orders/user/${encodeURIComponent(nextUser())}?limit=20`;

  await measure(
    { path: 'GET /orders/user/{id} (20 per page)', target: { against: 'floor', ratio: 0.6 } },
    () => load(PORTS.ours, [get(userPath)]),
    () => load(PORTS.floor, [get(userPath)]),
  );
  await measure(
    { path: 'user page via GraphQL, both intents', target: { against: 'peer', ratio: 1.0 } },
    () => load(PORTS.ours, [graphql(Q.oursUserPage, () => ({ u: nextUser() }))]),
    () => load(PORTS.floor, [get(userPath)]),
    () => load(PORTS.postgraphile, [graphql(Q.peerUserPage, () => ({ u: nextUser() }))]),
  );
  await measure(
    { path: 'GET /orders?status=completed', note: 'PostGraphile via GraphQL' },
    () => load(PORTS.ours, [get('/orders?status=completed&limit=20')]),
    () => load(PORTS.floor, [get('/orders?status=completed&limit=20')]),
    () => load(PORTS.postgraphile, [graphql(Q.peerStatusPage, () => ({}))]),
  );
  const deepPage = DEEP_OFFSET / 20 + 1;
  await measure(
    { path: `deep page, offset ${DEEP_OFFSET} (GET /orders?page=${deepPage})`, note: 'PostGraphile: offset' },
    () => load(PORTS.ours, [get(`/orders?page=${deepPage}&limit=20`)]),
    () => load(PORTS.floor, [get(`/orders?page=${deepPage}&limit=20`)]),
    () => load(PORTS.postgraphile, [graphql(Q.peerOffset, () => ({ offset: DEEP_OFFSET }))]),
  );
  await measure(
    { path: `deep page, keyset cursor (ordersConnection)`, note: 'floor: GET /orders?after=' },
    () => load(PORTS.ours, [graphql(Q.oursKeyset, () => ({ after: oursCursor }))]),
    () => load(PORTS.floor, [get(`/orders?after=${floorCursor}&limit=20`)]),
    () => load(PORTS.postgraphile, [graphql(Q.peerKeyset, () => ({ after: peerCursor }))]),
  );
  const pairs = async (port: number) => {
    const figures = await load(port, quoteThenOrder());
    return { ...figures, rps: figures.rps / 2 };
  };
  await measure(
    { path: 'POST /quotes + POST /orders (pairs/s)', target: { against: 'floor', ratio: 0.35 }, note: 'floor: raw SQL transactions' },
    () => pairs(PORTS.ours),
    () => pairs(PORTS.floor),
  );
  await measure(
    { path: 'GET /stats cold (cache expired each time)', note: 'floor: one aggregate pass; target p99 < 300 ms' },
    () => sequential(`http://127.0.0.1:${PORTS.oursCold}/stats`, 12, 1100),
    () => sequential(`http://127.0.0.1:${PORTS.floor}/stats`, 12, 0),
  );
  await measure({ path: 'GET /stats warm (cached)', note: 'floor: no cache' }, () => load(PORTS.ours, [get('/stats')]));

  const met = report(rows);
  if (ONLY) return;
  const cold = rows.find((r) => r.path.startsWith('GET /stats cold'))!.ours;
  console.log(`\nstats cold p99 ${ms(cold.p99)} ms: ${cold.p99 < 300 ? 'met' : 'NOT MET'} (target < 300 ms)`);
  console.log(met && cold.p99 < 300 ? 'all targets met' : 'some targets NOT met');

  console.log('\nEXPLAIN (ANALYZE, BUFFERS) of every statement each hot path sends, run once in-process:');
  await explainHotPaths(
    DATABASE_URL,
    [
      { name: 'user page', method: 'GET', path: userPath() },
      { name: 'status page', method: 'GET', path: '/orders?status=completed&limit=20' },
      { name: `deep page, offset ${DEEP_OFFSET}`, method: 'GET', path: `/orders?page=${deepPage}&limit=20` },
      { name: 'deep page, keyset', method: 'POST', path: '/graphql', body: { query: Q.oursKeyset, variables: { after: oursCursor } } },
      { name: 'stats, cold', method: 'GET', path: '/stats' },
      { name: 'create: the quote', method: 'POST', path: '/quotes', body: QUOTE_BODY },
      // The order consumes the quote the step before answered with.
      { name: 'create: the order', method: 'POST', path: '/orders', body: (quote) => orderBody((quote as { result: QuoteReply }).result) },
    ],
    (line) => console.log(line),
  );
}

main()
  .catch((error: unknown) => {
    console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  })
  .finally(stopAll);
