/**
 * `npm run bench`: the service against fair floors and the peer, over one PostgreSQL database holding a seeded
 * book of a million orders, in one run, at 10 and at 32 connections (test/bench/README.md).
 *
 * - The read floor (./floor.ts) returns byte for byte the body the service returns for the same request
 *   (test/bench-floor-matches-service.test.ts); the bench checks that again here, on the bench's own database, before it measures.
 * - The create floor is pgbench doing a quote and its order's logical work in plain SQL (./create-floor.ts, ./creates.ts).
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
import { readFileSync } from 'node:fs';
import os from 'node:os';
import autocannon from 'autocannon';
import pg from 'pg';
import { runWrkPairs, wrkVersion } from './create-wrk.ts';
import { createTurns, prepareFloor } from './creates.ts';
import { explainHotPaths } from './explain.ts';
import { FLOOR_DOCUMENTS, serviceCursor } from './floor.ts';
import { type Figures, get, graphql, inTurns, load, type Request, sample, sequential, type Target } from './load.ts';
import { NODE_FLAGS, SERVICE_ENV } from './node-flags.ts';
import { start, stopAll } from './processes.ts';
import { Q } from './queries.ts';
import {
  DATABASE_URL,
  FULL_USER_ORDERS,
  LEVELS,
  MIN_FULL_USERS,
  MIN_ORDERS,
  ONLY,
  PGBENCH_CLIENTS,
  SECONDS,
  STATS_TARGET_MS,
} from './settings.ts';
import { countStatements } from './statements.ts';

/** How deep the keyset page starts: 100,000 orders, or half of a smaller book. */
let DEEP_OFFSET = 100_000;

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

async function main(): Promise<void> {
  const db = new pg.Client({ connectionString: DATABASE_URL });
  await db.connect();
  const [{ orders }] = (await db.query(`SELECT count(*)::int AS orders FROM orders`)).rows;
  if (orders < MIN_ORDERS) {
    throw new Error(
      `${DATABASE_URL} holds ${orders} orders, fewer than ${MIN_ORDERS}. Seed it first (test/bench/README.md, Reproduce a run), ` +
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
      `node ${process.version} (servers run with ${NODE_FLAGS.join(' ') || 'no flags'}); PostgreSQL ${pgVersion}; autocannon ${pkg('./', 'autocannon')}, postgraphile ${pkg('./', 'postgraphile')}, ${wrkVersion()}, ` +
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
  // was measured next. The service is started afresh if the workers' measurement stopped it.
  const createPath = 'create pairs: POST /quotes + POST /orders';
  if (wanted(createPath)) {
    if (ours.child.exitCode !== null || ours.child.signalCode !== null) ours = await start('service', 'src/server.ts', service);
    // As a long-running instance is: the create path's statements prepared and its code compiled before it is
    // measured (the reads before it warm other code; without this the first level measured pays the compiler).
    await runWrkPairs(ours.port, Math.max(...LEVELS), 5);
    // The floor's scripts (its tables are made afresh at each connection count); pgbench runs on the same database,
    // in turns with the service.
    const script = prepareFloor();
    const bench = { databaseUrl: DATABASE_URL, port: ours.port, servicePid: ours.child.pid!, clients: PGBENCH_CLIENTS, seconds: SECONDS };
    for (const connections of LEVELS) {
      process.stdout.write(`  ${createPath} @${connections} ...`);
      const t = await createTurns(bench, script, connections);
      const waits = `${(t.lockWaitShare * 100).toFixed(1)}% of active backends waiting on a lock`;
      rows.push({
        path: createPath,
        connections,
        ours: t.ours,
        bytes: {},
        target: { against: 'pgbench', ratio: 0.35 },
        other: { label: `pgbench (${PGBENCH_CLIENTS} clients, plain SQL)`, ...t.floor },
        note:
          `CPU per order: gateway ${t.gatewayCpu.toFixed(2)} ms, PostgreSQL ${t.postgresCpu.toFixed(2)} ms ` +
          `(floor: PostgreSQL ${t.floorPostgresCpu.toFixed(2)} ms); load generator wrk ${t.clientCpu.toFixed(2)} ms, ` +
          `pgbench ${t.floorClientCpu.toFixed(2)} ms; ${waits}; against the plain SQL of signed quotes ` +
          `(${t.signedFloor.rps.toFixed(0)}/s): ${(t.ours.rps / t.signedFloor.rps).toFixed(2)}x`,
      });
      if (connections === 32) results.push({ text: `create pairs @32: ${waits} (< 5%)`, met: t.lockWaitShare < 0.05 });
      process.stdout.write(` ${t.ours.rps.toFixed(0)}/s, floor ${t.floor.rps.toFixed(0)}/s\n`);
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
