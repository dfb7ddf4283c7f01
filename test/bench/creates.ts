import { readFileSync } from 'node:fs';
import pg from 'pg';
import { createFloorTables, floorOrders, runPgbench, writeFloorScript } from './create-floor.ts';
import { runWrkPairs } from './create-wrk.ts';
import type { Figures } from './load.ts';
import { SAMPLER_APPLICATION, sampleLockWaits } from './lock-waits.ts';

/**
 * The create pairs against their plain-SQL floor (./create-floor.ts), in turns as the reads are (load.ts,
 * inTurns): each side warmed up, then SECONDS/2 each in the order service, floor, floor, service. Beside each
 * rate, what one order costs: the gateway's CPU (the service process's utime + stime, /proc/<pid>/stat) and
 * PostgreSQL's (the summed CPU of the client backends connected to the bench database: their pids from
 * pg_stat_activity, their CPU from /proc), over the pairs each turn wrote. During the service's turns pg_stat_activity is sampled
 * for backends waiting on a lock (./lock-waits.ts).
 */

const TICK_MS = 1000 / 100; // USER_HZ

/** utime + stime of a process in ms, or undefined once it has exited. */
export function procCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return undefined;
  }
}

/**
 * CPU of the backends of one database while a load runs: every `everyMs` the client backends are listed and
 * read from /proc; each counts from its value at start (or from zero when it connected later) to the last value
 * read. A backend that exits (pgbench's, at the end of its run) loses at most its last interval.
 */
export async function backendCpu(databaseUrl: string, dbName: string, everyMs = 50): Promise<{ stop(): Promise<number> }> {
  const db = new pg.Client({ connectionString: databaseUrl, application_name: SAMPLER_APPLICATION });
  await db.connect();
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  const read = async (starting: boolean) => {
    const { rows } = await db.query(
      `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend' AND application_name <> $2`,
      [dbName, SAMPLER_APPLICATION],
    );
    for (const { pid } of rows as { pid: number }[]) {
      const cpu = procCpuMs(pid);
      if (cpu === undefined) continue;
      if (!first.has(pid)) first.set(pid, starting ? cpu : 0);
      last.set(pid, cpu);
    }
  };
  await read(true);
  let running = true;
  const loop = (async () => {
    while (running) {
      await new Promise((r) => setTimeout(r, everyMs));
      await read(false);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      await read(false);
      await db.end();
      let sum = 0;
      for (const [pid, cpu] of last) sum += cpu - first.get(pid)!;
      return sum;
    },
  };
}

export interface CreateTurns {
  ours: Figures;
  floor: Figures;
  /** CPU per order, ms: the gateway's and PostgreSQL's for the service, PostgreSQL's for the floor. */
  gatewayCpu: number;
  postgresCpu: number;
  floorPostgresCpu: number;
  /** The load generators' CPU per order, ms: wrk for the service, pgbench for the floor. */
  clientCpu: number;
  floorClientCpu: number;
  /** The floor of the service's own design (signed quotes: create-floor.ts, floorScript), transactions/s. */
  signedFloor: Figures;
  lockWaitShare: number;
  floorOrders: number;
}

export interface CreateBench {
  databaseUrl: string;
  port: number;
  servicePid: number;
  clients: number;
  seconds: number;
}

/** The floor's scripts written (test/bench/create-pair.pgbench, create-pair-signed.pgbench); createTurns makes its tables. */
export function prepareFloor(): FloorScripts {
  return { stored: writeFloorScript('stored'), signed: writeFloorScript('signed') };
}

export interface FloorScripts {
  stored: string;
  signed: string;
}

/** The service's create pairs and the floor's, in turns at `connections`. */
export async function createTurns(bench: CreateBench, scripts: FloorScripts, connections: number): Promise<CreateTurns> {
  const script = scripts.stored;
  const { databaseUrl, port, servicePid, clients } = bench;
  const dbName = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
  const half = Math.max(1, Math.round(bench.seconds / 2));
  const totals = {
    pairs: 0,
    seconds: 0,
    gateway: 0,
    postgres: 0,
    client: 0,
    transactions: 0,
    floorSeconds: 0,
    floorPostgres: 0,
    floorClient: 0,
    signedTransactions: 0,
    signedSeconds: 0,
  };
  const waits = { active: 0, waiting: 0 };
  const p50 = { ours: [] as number[], floor: [] as number[], signed: [] as number[] };
  let p99 = 0;

  const serviceTurn = async () => {
    const cpu = await backendCpu(databaseUrl, dbName);
    const locks = await sampleLockWaits(databaseUrl, { database: dbName });
    const gatewayBefore = procCpuMs(servicePid)!;
    const result = await runWrkPairs(port, connections, half);
    totals.client += result.clientCpuMs;
    totals.gateway += procCpuMs(servicePid)! - gatewayBefore;
    totals.postgres += await cpu.stop();
    const sampled = await locks.stop();
    waits.active += sampled.active;
    waits.waiting += sampled.waitingOnLock;
    totals.pairs += result.orders;
    totals.seconds += result.seconds;
    p50.ours.push(result.p50);
    p99 = Math.max(p99, result.p99);
  };
  const floorTurn = async () => {
    const cpu = await backendCpu(databaseUrl, dbName);
    const run = await runPgbench(databaseUrl, script, clients, half);
    totals.floorPostgres += await cpu.stop();
    totals.floorClient += run.clientCpuMs;
    totals.transactions += run.transactions;
    totals.floorSeconds += run.transactions / run.tps;
    p50.floor.push(run.latencyMs);
  };
  const signedFloorTurn = async () => {
    const run = await runPgbench(databaseUrl, scripts.signed, clients, half);
    totals.signedTransactions += run.transactions;
    totals.signedSeconds += run.transactions / run.tps;
    p50.signed.push(run.latencyMs);
  };

  // Each connection count's floor starts from empty tables: the stored floor's UPDATE of an indexed column leaves a
  // dead row per pair, so without vacuum (off on the bench's PostgreSQL) a floor measured second would run slower.
  await createFloorTables(databaseUrl);
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    await runWrkPairs(port, connections, 2);
    await runPgbench(databaseUrl, script, clients, 2);
    const before = await floorOrders(db);
    // The service's orders since now (its clock, to the second as created_at is kept), counted again at the end.
    const [{ since }] = (await db.query(`SELECT date_trunc('second', now()) AS since`)).rows;
    const serviceOrders = async () =>
      (await db.query('SELECT count(*)::int AS n FROM orders WHERE created_at >= $1', [since])).rows[0].n as number;
    const serviceBefore = await serviceOrders();
    await serviceTurn();
    await floorTurn();
    await signedFloorTurn();
    await signedFloorTurn();
    await floorTurn();
    await serviceTurn();
    const written = (await floorOrders(db)) - before;
    // Every script run must have written its order, or pgbench measured a no-op.
    const runs = totals.transactions + totals.signedTransactions;
    if (written < runs) throw new Error(`pgbench wrote ${written} orders in ${runs} transactions`);
    // And every order counted from a 201 is in the book (more may be: a create still in flight when wrk stopped).
    const serviceWritten = (await serviceOrders()) - serviceBefore;
    if (serviceWritten < totals.pairs)
      throw new Error(`the service's book holds ${serviceWritten} new orders, wrk counted ${totals.pairs}`);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    return {
      ours: { rps: totals.pairs / totals.seconds, p50: mean(p50.ours), p99 },
      floor: { rps: totals.transactions / totals.floorSeconds, p50: mean(p50.floor), p99: Number.NaN },
      gatewayCpu: totals.gateway / totals.pairs,
      postgresCpu: totals.postgres / totals.pairs,
      floorPostgresCpu: totals.floorPostgres / totals.transactions,
      clientCpu: totals.client / totals.pairs,
      floorClientCpu: totals.floorClient / totals.transactions,
      signedFloor: { rps: totals.signedTransactions / totals.signedSeconds, p50: mean(p50.signed), p99: Number.NaN },
      lockWaitShare: waits.active === 0 ? 0 : waits.waiting / waits.active,
      floorOrders: written,
    };
  } finally {
    await db.end();
  }
}
