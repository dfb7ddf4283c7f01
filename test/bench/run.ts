/**
 * `npm run bench`: the service against fair floors and the peer, over one PostgreSQL database holding a seeded
 * book of a million orders, in one run, at 10 and at 32 connections (README, Performance).
 *
 * - The read floor (./floor.ts) returns byte for byte the body the service returns for the same request
 *   (test/bench-floor-matches-service.test.ts); the bench checks that again here, on the bench's own database, before it measures.
 * - The create floor is pgbench over the statements the service sends for a quote and its order (./create-floor.ts).
 * - The peer is PostGraphile 4 (./postgraphile.ts).
 * - User pages are full: users with at least 100 orders (seed them with `--even-users`, see README).
 *
 * The two sides of each read ratio are measured in turns (inTurns), and the writes (pgbench, the create pairs)
 * come after every read, so that neither side gets the other's disturbances.
 *
 * Prints req/s, p50/p99 latency and the response size for each path and server, each ratio beside its target,
 * the statements a page of 1, 20 and 100 orders sends (counted on the wire by a proxy in front of PostgreSQL),
 * the cold /stats p99, and the user page with 2 workers against 1 (WORKERS, src/cluster.ts).
 *
 * Environment: BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/bench), BENCH_SECONDS per
 * measurement (default 10, after a 2 s warm-up; two turns of half that for each side of a read ratio), BENCH_CONNECTIONS (default 10,32), BENCH_MIN_ORDERS (default
 * 1000000), BENCH_ONLY (measure only the paths whose name contains one of these comma-separated texts),
 * BENCH_EXPLAIN=1 (end with EXPLAIN of every statement of each hot path), BENCH_TRACE (print each cold /stats time).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, connect, type AddressInfo } from 'node:net';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { openPostgres } from '../../src/db/database.ts';
import { createLogger } from '../../src/logger.ts';
import { createRuntime } from '../../src/runtime.ts';
import { capturePairScript, PGBENCH, quoteThenOrder, runPgbench, writePairScript } from './create-floor.ts';
import { explainHotPaths } from './explain.ts';
import { FLOOR_DOCUMENTS, serviceCursor } from './floor.ts';
import { freePort } from '../support/server-process.ts';
import { NODE_FLAGS, SERVICE_ENV, serverEnv } from './node-flags.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/bench';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const LEVELS = (process.env.BENCH_CONNECTIONS ?? '10,32').split(',').map(Number);
const MIN_ORDERS = Number(process.env.BENCH_MIN_ORDERS ?? 1_000_000);
const ONLY = process.env.BENCH_ONLY?.split(',').filter(Boolean);
/** Users with at least this many orders: their first pages of 20 are full, and a page of 100 is too. */
const FULL_USER_ORDERS = 100;
const MIN_FULL_USERS = Number(process.env.BENCH_MIN_FULL_USERS ?? 200);
const PGBENCH_CLIENTS = 8;
const STATS_TARGET_MS = 100;
/** How deep the keyset page starts: 100,000 orders, or half of a smaller book. */
let DEEP_OFFSET = 100_000;

interface Figures {
  rps: number;
  p50: number;
  p99: number;
}

// ---------------------------------------------------------------------------------------------
// Processes

const children: ChildProcess[] = [];

interface Started {
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

async function start(name: string, script: string, env: Record<string, string> = {}): Promise<Started> {
  const port = await freePort();
  const child = spawn(process.execPath, [...NODE_FLAGS, '--import', 'tsx', script], {
    cwd: ROOT,
    env: serverEnv(DATABASE_URL, port, env),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  children.push(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}): ${stderr.slice(-2000)}`);
    // Any answer means it listens (PostGraphile has no /health).
    const up = await fetch(`http://127.0.0.1:${port}/health`).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) throw new Error(`${name} did not start within 90 s: ${stderr.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    port,
    child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

function stopAll(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
}
process.on('exit', stopAll);
process.on('SIGINT', () => process.exit(130));

// ---------------------------------------------------------------------------------------------
// Load

type Request = autocannon.Request;
const graphqlErrors: string[] = [];

/** A closed-loop load of `connections` for `seconds`, no warm-up; every answer must be 2xx. */
async function loadFor(port: number, requests: Request[], connections: number, seconds: number): Promise<Figures> {
  const result = await autocannon({ url: `http://127.0.0.1:${port}`, connections, duration: seconds, requests });
  if (graphqlErrors.length > 0) throw new Error(`port ${port}: ${graphqlErrors.length} GraphQL errors, first: ${graphqlErrors[0]}`);
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(`port ${port} ${requests[0]?.path}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`);
  }
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

/** SECONDS of load after a 2 s warm-up. */
async function load(port: number, requests: Request[], connections: number): Promise<Figures> {
  await loadFor(port, requests, connections, 2);
  return loadFor(port, requests, connections, SECONDS);
}

/** A server and the load it is measured with. */
interface Target {
  port: number;
  requests: () => Request[];
}

/**
 * The service and the server its ratio is taken against, measured in turns: each warmed up for 2 s, then
 * SECONDS/2 each in the order service, other, other, service. Whatever else the machine does meanwhile (autovacuum,
 * a checkpoint, a neighbour) then falls on both alike, where one after the other it fell on whichever ran at the
 * time. Each side's rate is the mean of its two turns; p50 the mean, p99 the higher of its two.
 */
async function inTurns(ours: Target, other: Target, connections: number): Promise<[Figures, Figures]> {
  const half = SECONDS / 2;
  const turn = (t: Target) => loadFor(t.port, t.requests(), connections, half);
  await loadFor(ours.port, ours.requests(), connections, 2);
  await loadFor(other.port, other.requests(), connections, 2);
  const a1 = await turn(ours);
  const b1 = await turn(other);
  const b2 = await turn(other);
  const a2 = await turn(ours);
  const both = (x: Figures, y: Figures): Figures => ({ rps: (x.rps + y.rps) / 2, p50: (x.p50 + y.p50) / 2, p99: Math.max(x.p99, y.p99) });
  return [both(a1, a2), both(b1, b2)];
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

const get = (path: () => string): Request => ({ method: 'GET', path: path(), setupRequest: (req) => ({ ...req, path: path() }) });

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

/** The body one request gets, as bytes (a sample for the report, and for the equal-bytes check). */
async function sample(port: number, request: Request): Promise<string> {
  const init: RequestInit = { method: request.method, headers: request.headers as Record<string, string> };
  if (request.body) init.body = request.body as string;
  const reply = await fetch(`http://127.0.0.1:${port}${request.path}`, init);
  const text = await reply.text();
  if (!reply.ok) throw new Error(`${request.method} ${request.path} on ${port}: ${reply.status} ${text.slice(0, 300)}`);
  return text;
}

// ---------------------------------------------------------------------------------------------
// Statements on the wire: a proxy in front of PostgreSQL counts what clients execute

/**
 * Counts Bind (extended protocol: one per statement executed) and Query (simple protocol) messages
 * from clients to PostgreSQL, passing every byte through unchanged.
 */
async function statementCounter(target: URL) {
  let statements = 0;
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    let buffered = Buffer.alloc(0);
    let started = false;
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        if (!started) {
          // The startup message (and an SSLRequest before it) has a length but no type byte.
          if (buffered.length < 8) break;
          const length = buffered.readInt32BE(0);
          if (buffered.length < length) break;
          const code = buffered.readInt32BE(4);
          buffered = buffered.subarray(length);
          if (code !== 80877103) started = true;
          continue;
        }
        if (buffered.length < 5) break;
        const length = buffered.readInt32BE(1);
        if (buffered.length < length + 1) break;
        const type = String.fromCharCode(buffered[0]!);
        if (type === 'B' || type === 'Q') statements++;
        buffered = buffered.subarray(length + 1);
      }
    });
    upstream.on('data', (chunk) => client.write(chunk));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target.href);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as AddressInfo).port);
  return { url: url.href, count: () => statements, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** Statements the service sends for each request, the app in-process over the counting proxy (no background work started). */
async function countStatements(
  requests: { name: string; path: string; body?: unknown }[],
): Promise<{ name: string; statements: number }[]> {
  const counter = await statementCounter(new URL(DATABASE_URL));
  const db = await openPostgres({ url: counter.url });
  const config = loadConfig({ DATABASE_URL: counter.url, NODE_ENV: 'production', LOG_LEVEL: 'silent' });
  const runtime = createRuntime({ config, db, logger: createLogger('silent') });
  const out: { name: string; statements: number }[] = [];
  try {
    const send = async (r: { path: string; body?: unknown }) => {
      const reply = await runtime.app.fetch(`http://bench${r.path}`, {
        method: r.body === undefined ? 'GET' : 'POST',
        headers: r.body === undefined ? {} : { 'content-type': 'application/json' },
        body: r.body === undefined ? undefined : JSON.stringify(r.body),
      });
      const text = await reply.text();
      if (!reply.ok || text.includes('"errors"')) throw new Error(`${r.path}: ${reply.status} ${text.slice(0, 300)}`);
    };
    for (const r of requests) {
      await send(r); // warm: first-use statements (registry, plans) are not the page's
      const before = counter.count();
      await send(r);
      out.push({ name: r.name, statements: counter.count() - before });
    }
  } finally {
    await runtime.stop();
    await db.close();
    await counter.close();
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The work

const INTENT = `swapId chain asset tokenAddress creator recipient amount commitmentHash commitment cancelAfter
  registryAddress createTxHash createBlockNumber createTimestamp claimTxHash claimBlockNumber claimTimestamp
  cancelTxHash cancelBlockNumber cancelTimestamp l1Hop hopBridgeFactory hopDestBlockchainId hopRecipient hopFeeToken
  hopRelayerFee finalChain finalTokenAddress bridgeTxHash createdAt updatedAt`;
const PEER_ORDER = `id userId quoteId stage sourceTokenPrice destTokenPrice feeBips createdAt updatedAt
  intentBySourceSwapIdAndCreatedAt { ${INTENT} } intentByDestinationSwapIdAndCreatedAt { ${INTENT} }`;
const OURS_ORDER = `orderId userId quoteId status sourceTokenPrice destTokenPrice feeBips createdAt updatedAt
  sourceIntent { ${INTENT} } destinationIntent { ${INTENT} }`;

const Q = {
  peerUserPage: `query($u: String!) { allOrders(condition: { userId: $u }, orderBy: [CREATED_AT_DESC, ID_DESC], first: 20) {
    totalCount nodes { ${PEER_ORDER} } } }`,
  oursStatusPage: `query { orders(filter: { status: [COMPLETED] }, limit: 20) { total data { ${OURS_ORDER} } } }`,
  peerStatusPage: `query { allOrders(condition: { stage: COMPLETED }, orderBy: [CREATED_AT_DESC, ID_DESC], first: 20) {
    totalCount nodes { ${PEER_ORDER} } } }`,
  peerKeyset: `query($after: Cursor!) { allOrders(orderBy: [CREATED_AT_DESC, ID_DESC], first: 20, after: $after) {
    nodes { ${PEER_ORDER} } pageInfo { endCursor } } }`,
  oursKeyset100: `query($after: String!) { ordersConnection(first: 100, after: $after) { edges { node { ${OURS_ORDER} } } pageInfo { endCursor } } }`,
  oursKeyset1: `query($after: String!) { ordersConnection(first: 1, after: $after) { edges { node { ${OURS_ORDER} } } pageInfo { endCursor } } }`,
};

// ---------------------------------------------------------------------------------------------
// Report

type Against = 'floor' | 'peer' | 'pgbench' | 'one worker';

interface Row {
  path: string;
  connections: number;
  ours: Figures;
  floor?: Figures;
  peer?: Figures;
  /** Bytes of one response body: the service's, the floor's (equal, checked) and the peer's. */
  bytes: { ours?: number; floor?: number; peer?: number };
  target?: { against: Against; ratio: number };
  /** What the ratio is taken against when it is neither floor nor peer (pgbench, one worker). */
  other?: Figures & { label: string };
  note?: string;
}

const ms = (v: number) => (v >= 100 ? v.toFixed(0) : v.toFixed(1));
const size = (b?: number) => (b === undefined ? '' : ` ${(b / 1024).toFixed(1)} KiB`);
const cell = (f?: Figures, bytes?: number) => {
  if (!f) return '—';
  // pgbench reports an average latency, no percentiles.
  if (Number.isNaN(f.p99)) return `${f.rps.toFixed(0).padStart(6)}/s latency average ${ms(f.p50)} ms`;
  return `${f.rps.toFixed(0).padStart(6)}/s p50 ${ms(f.p50).padStart(5)} p99 ${ms(f.p99).padStart(5)} ms${size(bytes)}`;
};

function ratioOf(row: Row): { against: string; value: number } | undefined {
  const against = row.target?.against ?? (row.floor ? 'floor' : row.peer ? 'peer' : row.other ? row.other.label : undefined);
  const other = against === 'floor' ? row.floor : against === 'peer' ? row.peer : row.other;
  return other && against ? { against, value: row.ours.rps / other.rps } : undefined;
}

const results: { text: string; met: boolean }[] = [];

function report(rows: Row[]): void {
  console.log('\nrate per second, latency, and one response body (KiB); ratio = service / the other\n');
  for (const row of rows) {
    const ratio = ratioOf(row);
    const parts = [
      `${row.path} @${row.connections}`,
      `  service  ${cell(row.ours, row.bytes.ours)}`,
      row.floor ? `  floor    ${cell(row.floor, row.bytes.floor)}` : '',
      row.peer ? `  PostGraphile ${cell(row.peer, row.bytes.peer)}` : '',
      row.other ? `  ${row.other.label} ${cell(row.other)}` : '',
    ].filter(Boolean);
    let verdict = '';
    if (row.target && ratio) {
      const met = ratio.value >= row.target.ratio;
      verdict = `  => ${ratio.value.toFixed(2)}x ${ratio.against} (target >= ${row.target.ratio}x: ${met ? 'met' : 'NOT MET'})`;
      results.push({ text: `${row.path} @${row.connections}: ${ratio.value.toFixed(2)}x ${ratio.against} (>= ${row.target.ratio}x)`, met });
    } else if (ratio) {
      verdict = `  => ${ratio.value.toFixed(2)}x ${ratio.against}`;
    }
    if (row.floor && row.peer && row.target?.against !== 'floor') verdict += `, ${(row.ours.rps / row.floor.rps).toFixed(2)}x floor`;
    if (row.peer && row.target?.against !== 'peer' && ratio?.against !== 'peer')
      verdict += `, ${(row.ours.rps / row.peer.rps).toFixed(2)}x PostGraphile`;
    console.log([...parts, `${verdict}${row.note ? `; ${row.note}` : ''}`].join('\n'));
  }
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const db = new pg.Client({ connectionString: DATABASE_URL });
  await db.connect();
  const [{ orders }] = (await db.query(`SELECT count(*)::int AS orders FROM orders`)).rows;
  if (orders < MIN_ORDERS) {
    throw new Error(
      `${DATABASE_URL} holds ${orders} orders, fewer than ${MIN_ORDERS}. Seed it first (README, Performance), ` +
        `or set BENCH_MIN_ORDERS to bench a smaller book`,
    );
  }
  const users = (
    await db.query(`SELECT user_id FROM orders GROUP BY user_id HAVING count(*) >= ${FULL_USER_ORDERS} ORDER BY md5(user_id) LIMIT 2000`)
  ).rows.map((r) => r.user_id as string);
  if (users.length < MIN_FULL_USERS) {
    throw new Error(
      `${DATABASE_URL} has ${users.length} users with ${FULL_USER_ORDERS}+ orders, fewer than ${MIN_FULL_USERS}. Add them:\n` +
        `  DATABASE_URL=${DATABASE_URL} npm run seed -- --orders 200000 --users 2000 --days 180 --even-users --seed full-pages`,
    );
  }
  DEEP_OFFSET = Math.min(DEEP_OFFSET, Math.floor(orders / 40) * 20);
  const [deep] = (await db.query(`SELECT created_at, id FROM orders ORDER BY created_at DESC, id DESC OFFSET $1 LIMIT 1`, [DEEP_OFFSET]))
    .rows;
  const pkg = (dir: string, name: string) =>
    JSON.parse(readFileSync(new URL(`${dir}node_modules/${name}/package.json`, import.meta.url), 'utf8')).version as string;
  const [{ server_version: pgVersion }] = (await db.query('SHOW server_version')).rows;
  const [{ load: loadAvg }] = [
    {
      load: os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' '),
    },
  ];
  console.log(
    `machine: ${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, load average ${loadAvg}; ` +
      `node ${process.version} (servers run with ${NODE_FLAGS.join(' ') || 'no flags'}); PostgreSQL ${pgVersion}; autocannon ${pkg('./', 'autocannon')}, postgraphile ${pkg('./', 'postgraphile')}, ` +
      `graphql-yoga ${pkg('../../', 'graphql-yoga')}, @prisma/client ${pkg('../../', '@prisma/client')}`,
  );
  console.log(
    `book: ${orders} orders; user pages from ${users.length} users with ${FULL_USER_ORDERS}+ orders each (full pages of 20); ` +
      `${LEVELS.join(' and ')} connections, ${SECONDS} s per measurement after a 2 s warm-up`,
  );
  let u = 0;
  const nextUser = () => users[u++ % users.length]!;
  const oursCursor = serviceCursor(deep.created_at as Date, deep.id as string);

  console.log('starting the service, a second instance with a 1 s stats cache, the floor and PostGraphile ...');
  const service = SERVICE_ENV;
  let ours = await start('service', 'src/server.ts', service);
  const oursCold = await start('service (cold stats)', 'src/server.ts', { ...service, STATS_CACHE_SECONDS: '1' });
  const floor = await start('floor', 'test/bench/floor.ts');
  const peer = await start('postgraphile', 'test/bench/postgraphile.ts');
  const peerCursor = await (async () => {
    const body = await sample(peer.port, {
      method: 'POST',
      path: '/graphql',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `{ allOrders(orderBy: [CREATED_AT_DESC, ID_DESC], first: 1, offset: ${DEEP_OFFSET}) { pageInfo { endCursor } } }`,
      }),
    });
    return (JSON.parse(body) as { data: { allOrders: { pageInfo: { endCursor: string } } } }).data.allOrders.pageInfo.endCursor;
  })();

  const userPath = () => `/orders/user/${encodeURIComponent(nextUser())}?limit=20`;
  const paths = {
    rest: () => [get(userPath)],
    gqlUser: () => [graphql(FLOOR_DOCUMENTS.userPage, () => ({ u: nextUser() }))],
    peerUser: () => [graphql(Q.peerUserPage, () => ({ u: nextUser() }))],
    keyset: () => [graphql(FLOOR_DOCUMENTS.keyset, () => ({ after: oursCursor }))],
    peerKeyset: () => [graphql(Q.peerKeyset, () => ({ after: peerCursor }))],
    status: () => [get(() => '/orders?status=completed&limit=20')],
    peerStatus: () => [graphql(Q.peerStatusPage, () => ({}))],
  };

  // The floor's bodies must be the service's, here too, before a ratio means anything.
  const sizes: Record<string, { ours: number; floor?: number; peer?: number }> = {};
  const sameBytes = async (name: string, ourRequest: Request, peerRequest?: Request, floored = true) => {
    const a = await sample(ours.port, ourRequest);
    if (floored) {
      const b = await sample(floor.port, ourRequest);
      if (a !== b) throw new Error(`the floor's body for ${name} differs from the service's (${a.length} and ${b.length} bytes)`);
    }
    sizes[name] = { ours: Buffer.byteLength(a), floor: floored ? Buffer.byteLength(a) : undefined };
    if (peerRequest) sizes[name]!.peer = Buffer.byteLength(await sample(peer.port, peerRequest));
  };
  await sameBytes('rest', paths.rest()[0]!);
  await sameBytes('gqlUser', paths.gqlUser()[0]!, paths.peerUser()[0]!);
  await sameBytes('keyset', paths.keyset()[0]!, paths.peerKeyset()[0]!);
  await sameBytes('status', paths.status()[0]!, paths.peerStatus()[0]!, false);
  console.log('the floor answered byte for byte as the service (user page REST and GraphQL, keyset page)');

  const rows: Row[] = [];
  const wanted = (path: string) => !ONLY || ONLY.some((text) => path.includes(text));
  /**
   * One path at one level: the service in turns with the server its ratio is taken against (the target's, else
   * the floor, else the peer: inTurns), then the remaining one on its own.
   */
  const measure = async (
    row: Omit<Row, 'ours' | 'floor' | 'peer' | 'connections'>,
    connections: number,
    targets: { ours: Target; floor?: Target; peer?: Target },
  ) => {
    if (!wanted(row.path)) return;
    process.stdout.write(`  ${row.path} @${connections} ...`);
    const against = row.target?.against === 'peer' || !targets.floor ? 'peer' : 'floor';
    const [ours, paired] = await inTurns(targets.ours, targets[against]!, connections);
    const rest = against === 'floor' ? targets.peer : targets.floor;
    const alone = rest ? await load(rest.port, rest.requests(), connections) : undefined;
    const result: Row = {
      ...row,
      connections,
      ours,
      floor: against === 'floor' ? paired : alone,
      peer: against === 'peer' ? paired : alone,
    };
    rows.push(result);
    process.stdout.write(` ${result.ours.rps.toFixed(0)}/s\n`);
  };

  for (const connections of LEVELS) {
    await measure(
      { path: 'GET /orders/user/{id} (full page of 20)', bytes: sizes.rest!, target: { against: 'floor', ratio: 0.8 } },
      connections,
      { ours: { port: ours.port, requests: paths.rest }, floor: { port: floor.port, requests: paths.rest } },
    );
    await measure(
      { path: 'user page via GraphQL, both intents', bytes: sizes.gqlUser!, target: { against: 'peer', ratio: 1.2 } },
      connections,
      {
        ours: { port: ours.port, requests: paths.gqlUser },
        floor: { port: floor.port, requests: paths.gqlUser },
        peer: { port: peer.port, requests: paths.peerUser },
      },
    );
    await measure(
      { path: `keyset page at ${DEEP_OFFSET} (ordersConnection)`, bytes: sizes.keyset!, target: { against: 'floor', ratio: 0.8 } },
      connections,
      {
        ours: { port: ours.port, requests: paths.keyset },
        floor: { port: floor.port, requests: paths.keyset },
        peer: { port: peer.port, requests: paths.peerKeyset },
      },
    );
    await measure({ path: 'GET /orders?status=completed', bytes: sizes.status!, note: 'no floor; PostGraphile via GraphQL' }, connections, {
      ours: { port: ours.port, requests: paths.status },
      peer: { port: peer.port, requests: paths.peerStatus },
    });
  }

  let cold: Figures | undefined;
  let coldFirst: Figures | undefined;
  if (wanted('stats')) {
    // The instance's first request also opens its pool connections and plans its statements: its warm-up, as
    // every other path has one, measured and printed but not counted in the cache-expired figures.
    coldFirst = await sequential(`http://127.0.0.1:${oursCold.port}/stats`, 1, 1100);
    cold = await sequential(`http://127.0.0.1:${oursCold.port}/stats`, 15, 1100);
  }

  // Several workers on one host (src/cluster.ts): the user page at the highest level, 2 workers against 1. Each
  // starts fresh, gets 10 s to settle (every worker of the two up and listening) and a 5 s warm-up load of its own.
  if (wanted('workers')) {
    const top = Math.max(...LEVELS);
    await ours.stop();
    const measureWorkers = async (workers: number) => {
      const started = await start(`service, ${workers} worker(s)`, 'src/server.ts', { ...service, WORKERS: String(workers) });
      await new Promise((r) => setTimeout(r, 10_000));
      await autocannon({ url: `http://127.0.0.1:${started.port}`, connections: top, duration: 5, requests: paths.rest() });
      const figures = await load(started.port, paths.rest(), top);
      await started.stop();
      return figures;
    };
    const single = await measureWorkers(1);
    const double = await measureWorkers(2);
    rows.push({
      path: 'GET /orders/user/{id}, WORKERS=2 against 1',
      connections: top,
      ours: double,
      other: { ...single, label: 'one worker' },
      bytes: sizes.rest!,
    });
    console.log(`  workers: 1 worker ${single.rps.toFixed(0)}/s, 2 workers ${double.rps.toFixed(0)}/s`);
  }

  // The writes come last: the rows they add set autovacuum and checkpoints going, which would fall on whatever
  // was measured next. The service is started afresh, and warmed up, if the workers' measurement stopped it.
  if (wanted('POST /quotes')) {
    if (ours.child.exitCode !== null || ours.child.signalCode !== null) {
      ours = await start('service', 'src/server.ts', service);
      // As the long-running instance was: its statements prepared and its code compiled before it is measured.
      await loadFor(ours.port, quoteThenOrder(), Math.max(...LEVELS), 5);
    }
    // The floor's script from what the service sends now; pgbench runs it on the same database.
    const script = writePairScript(await capturePairScript(DATABASE_URL));
    const before = (await db.query('SELECT count(*)::int AS n FROM orders')).rows[0].n as number;
    const pgbench = await runPgbench(DATABASE_URL, script, PGBENCH_CLIENTS, SECONDS);
    const added = ((await db.query('SELECT count(*)::int AS n FROM orders')).rows[0].n as number) - before;
    // Every script run must have written its order, or pgbench measured a no-op.
    if (added < pgbench.tps * SECONDS * 0.9) throw new Error(`pgbench wrote ${added} orders for ${pgbench.tps} tps over ${SECONDS} s`);
    console.log(
      `  pgbench (${PGBENCH}), ${PGBENCH_CLIENTS} clients, ${script}: ${pgbench.tps.toFixed(0)} transactions/s (${added} orders written)`,
    );
    const path = 'POST /quotes + POST /orders (pairs)';
    for (const connections of LEVELS) {
      process.stdout.write(`  ${path} @${connections} ...`);
      const figures = await load(ours.port, quoteThenOrder(), connections);
      // Two requests per pair.
      const pairsPerSecond = { ...figures, rps: figures.rps / 2 };
      rows.push({
        path,
        connections,
        ours: pairsPerSecond,
        bytes: {},
        target: { against: 'pgbench', ratio: 0.35 },
        other: { label: 'pgbench', rps: pgbench.tps, p50: pgbench.latencyMs, p99: Number.NaN },
      });
      process.stdout.write(` ${pairsPerSecond.rps.toFixed(0)}/s\n`);
    }
  }

  report(rows);

  const counts = wanted('statements')
    ? await countStatements([
        { name: 'REST user page, limit 1', path: `/orders/user/${encodeURIComponent(users[0]!)}?limit=1` },
        { name: 'REST user page, limit 20', path: `/orders/user/${encodeURIComponent(users[0]!)}?limit=20` },
        { name: 'REST user page, limit 100', path: `/orders/user/${encodeURIComponent(users[0]!)}?limit=100` },
        { name: 'keyset page, first 1', path: '/graphql', body: { query: Q.oursKeyset1, variables: { after: oursCursor } } },
        { name: 'keyset page, first 20', path: '/graphql', body: { query: FLOOR_DOCUMENTS.keyset, variables: { after: oursCursor } } },
        { name: 'keyset page, first 100', path: '/graphql', body: { query: Q.oursKeyset100, variables: { after: oursCursor } } },
      ])
    : [];
  if (counts.length > 0) {
    console.log('\nstatements sent to PostgreSQL per request (Bind + Query messages, counted on the wire):');
    for (const c of counts) console.log(`  ${c.name.padEnd(28)} ${c.statements}`);
    for (const kind of ['REST user page', 'keyset page']) {
      const n = new Set(counts.filter((c) => c.name.startsWith(kind)).map((c) => c.statements));
      results.push({ text: `${kind}: a page of 100 sends as many statements as a page of 1 (${[...n].join(', ')})`, met: n.size === 1 });
    }
  }
  if (cold) {
    console.log(
      `\nGET /stats cold (cache expired each time, 15 requests 1.1 s apart): p50 ${ms(cold.p50)} ms, p99 ${ms(cold.p99)} ms` +
        ` (before them, the instance's first request: ${ms(coldFirst!.p50)} ms)`,
    );
    results.push({
      text: `GET /stats cold p99 ${ms(cold.p99)} ms at ${orders} orders (< ${STATS_TARGET_MS} ms)`,
      met: cold.p99 < STATS_TARGET_MS,
    });
  }
  await db.end();

  console.log('\ntargets:');
  for (const r of results) console.log(`  ${r.met ? 'met    ' : 'NOT MET'}  ${r.text}`);
  const verdict = results.every((r) => r.met) ? 'all targets measured were met' : 'some targets NOT met';
  console.log(ONLY ? `${verdict} (BENCH_ONLY: not every target was measured)` : verdict);

  if (process.env.BENCH_EXPLAIN === '1') {
    console.log('\nEXPLAIN (ANALYZE, BUFFERS) of every statement each hot path sends, run once in-process:');
    await explainHotPaths(
      DATABASE_URL,
      [
        { name: 'user page', method: 'GET', path: userPath() },
        { name: 'status page', method: 'GET', path: '/orders?status=completed&limit=20' },
        {
          name: 'keyset page',
          method: 'POST',
          path: '/graphql',
          body: { query: FLOOR_DOCUMENTS.keyset, variables: { after: oursCursor } },
        },
        { name: 'stats, cold', method: 'GET', path: '/stats' },
        { name: 'create: the quote', method: 'POST', path: '/quotes', body: QUOTE_BODY },
        {
          name: 'create: the order',
          method: 'POST',
          path: '/orders',
          body: (quote: unknown) => orderBody((quote as { result: QuoteReply }).result),
        },
      ],
      (line) => console.log(line),
    );
  }
}

main()
  .catch((error: unknown) => {
    console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  })
  .finally(stopAll);
