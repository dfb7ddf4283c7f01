import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createOrder } from './client.ts';
import { MixedLoad, type PhaseFigures } from './load.ts';
import { sleep, waitFor } from './processes.ts';
import { backendUp, startCluster, type Cluster, type PgNode } from './topology.ts';

/**
 * The gateway inside the deployment topology (README, Deployment): read routing on a real streaming
 * replica, capacity figures, then one failure after another under a mixed load through HAProxy, and last
 * the loss of the PostgreSQL primary. Every acknowledged order must be readable at the end. The figures
 * are printed (and written to CLUSTER_FIGURES when set).
 */
let cluster: Cluster;
const figures: Record<string, unknown> = {};

beforeAll(async () => {
  const started = Date.now();
  // A lag bound of 3 s leaves the replica-routing test time to create an order and read it while the
  // replica's replay is paused, on a machine where a create can take half a second.
  cluster = await startCluster({ log: (line) => console.log(line), gatewayEnv: { REPLICA_MAX_LAG_MS: '3000' } });
  figures.startupSeconds = (Date.now() - started) / 1000;
  console.log(cluster.describe());
});
afterAll(async () => {
  // The gateways' errors (not their request lines), for whoever reads a failed run.
  for (const gateway of cluster?.gateways ?? []) {
    try {
      const errors = readFileSync(`${cluster.dir}/${gateway.name}.log`, 'utf8')
        .split('\n')
        .filter((line) => line.includes('"level":50') && !line.includes('"msg":"request"'));
      if (errors.length > 0) console.log(`${gateway.name}: ${errors.length} error lines, first ones:\n${errors.slice(0, 5).join('\n')}`);
    } catch {
      // no log
    }
  }
  console.log(`cluster figures\n${JSON.stringify(figures, null, 2)}`);
  if (process.env.CLUSTER_FIGURES) writeFileSync(process.env.CLUSTER_FIGURES, JSON.stringify(figures, null, 2));
  await cluster?.stop();
});

async function sql<T extends pg.QueryResultRow>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query<T>(text, params)).rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const nodeUrl = (node: PgNode) => `postgresql://postgres@127.0.0.1:${node.pgPort}/orderbook`;

/** CPU seconds (user + system) used so far by these processes, from /proc. */
function cpuSeconds(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone
    }
  }
  return ticks / 100;
}

function postgresPids(node: PgNode): number[] {
  const postmaster = Number(readFileSync(`${node.dataDir}/postmaster.pid`, 'utf8').split('\n')[0]);
  const children = execFileSync('pgrep', ['-P', String(postmaster)])
    .toString()
    .split('\n')
    .filter(Boolean)
    .map(Number);
  return [postmaster, ...children];
}

const gatewayPids = () => cluster.gateways.map((g) => g.service!.child.pid!);

describe('the topology', () => {
  it('serves through HAProxy from every gateway, on PgBouncer and the Patroni leader', async () => {
    const statsPort = Number(new URL(cluster.haproxyStatsUrl).port);
    expect(await backendUp(statsPort, 'gateways')).toBe(3);
    const { orderId } = await createOrder(cluster.apiUrl, '10.0.0.1', 'smoke');
    expect(orderId).toBeDefined();
    for (const gateway of cluster.gateways) {
      expect((await call(gateway.url, 'GET', `/orders/${orderId}`, '10.0.0.1')).status).toBe(200);
    }
    expect((await cluster.leader())?.name).toBe('pg1');
    expect(await cluster.nodes[1]!.rest('/sync')).toBe(200);
  });

  it("reads another client's lists on the replica, and the writer's own on the primary", async () => {
    const replica = cluster.nodes[1]!;
    // The replica stops applying WAL (it still receives and flushes it, so synchronous commits go on): a new
    // order is on the primary only, until the lag checks skip the replica. Patroni resumes a paused replay
    // on its next loop unless the cluster is in maintenance mode.
    try {
      await cluster.maintenance(true);
      await sql(nodeUrl(replica), 'SELECT pg_wal_replay_pause()');
      // The call only asks for the pause; WAL that arrives before the startup process notices is still applied.
      await waitFor(
        'the replica to pause replay',
        async () =>
          (await sql<{ state: string }>(nodeUrl(replica), 'SELECT pg_get_wal_replay_pause_state() AS state'))[0]?.state === 'paused',
        10_000,
        50,
      );
      const { orderId } = await createOrder(cluster.apiUrl, '10.0.3.1', 'lag-writer');
      const [writerList, readerList, readerById] = await Promise.all([
        call(cluster.apiUrl, 'GET', '/orders/user/lag-writer', '10.0.3.1'),
        call(cluster.apiUrl, 'GET', '/orders/user/lag-writer', '10.0.3.2'),
        call(cluster.apiUrl, 'GET', `/orders/${orderId}`, '10.0.3.2'),
      ]);
      expect(writerList.body?.result?.total).toBe(1);
      expect(readerById.status).toBe(200);
      // Another client's list comes from the paused replica, without the order. A gateway's view of the replica
      // is at most one check old (500 ms), so a read that came just before a check settles may have gone to the
      // primary: asked again, well inside the lag bound (3 s), it must come from the replica.
      let readerTotal = readerList.body?.result?.total;
      for (const until = Date.now() + 1_500; readerTotal !== 0 && Date.now() < until; await sleep(100)) {
        readerTotal = (await call(cluster.apiUrl, 'GET', '/orders/user/lag-writer', '10.0.3.2')).body?.result?.total;
      }
      expect(readerTotal).toBe(0);
      // Past the lag bound the replica is skipped: the reader sees the order from the primary.
      await waitFor(
        'the lagging replica to be skipped',
        async () => (await call(cluster.apiUrl, 'GET', '/orders/user/lag-writer', '10.0.3.2')).body?.result?.total === 1,
        10_000,
        200,
      );
    } finally {
      await sql(nodeUrl(replica), 'SELECT pg_wal_replay_resume()');
      await cluster.maintenance(false);
    }
  });
});

describe('capacity', () => {
  it('measures create rates per instance and through HAProxy, CPU per order, and replica lag under writes', async () => {
    const leader = cluster.nodes[0]!;
    const measure = async (base: string, writers: number, seconds: number) => {
      const load = new MixedLoad(base, { writers, readers: 0 });
      const lags: number[] = [];
      const walBefore = (await sql<{ lsn: string }>(cluster.primaryUrl, 'SELECT pg_current_wal_lsn()::text AS lsn'))[0]!.lsn;
      const pgCpu = cpuSeconds(postgresPids(leader));
      const gwCpu = cpuSeconds(gatewayPids());
      const from = Date.now();
      load.start();
      const until = from + seconds * 1000;
      while (Date.now() < until) {
        const [row] = await sql<{ lag: number | null }>(
          cluster.primaryUrl,
          'SELECT max(extract(epoch FROM replay_lag)) * 1000 AS lag FROM pg_stat_replication',
        );
        if (row?.lag != null) lags.push(Number(row.lag));
        await sleep(250);
      }
      const to = Date.now();
      await load.stop();
      const orders = load.rate('quote+order', from, to);
      const created = load.acknowledged.size;
      const [wal] = await sql<{ bytes: string }>(cluster.primaryUrl, 'SELECT pg_current_wal_lsn() - $1::pg_lsn AS bytes', [walBefore]);
      lags.sort((a, b) => a - b);
      return {
        ordersPerSecond: Number(orders.toFixed(1)),
        // Each order here is also read back by id and in its user's list.
        postgresCpuMsPerOrder: Number((((cpuSeconds(postgresPids(leader)) - pgCpu) * 1000) / created).toFixed(2)),
        gatewayCpuMsPerOrder: Number((((cpuSeconds(gatewayPids()) - gwCpu) * 1000) / created).toFixed(2)),
        walBytesPerOrder: Math.round(Number(wal!.bytes) / created),
        replicaReplayLagMs: {
          p50: Number((lags[Math.floor(lags.length / 2)] ?? 0).toFixed(1)),
          max: Number((lags.at(-1) ?? 0).toFixed(1)),
        },
        failed: load.figures(from, to).failed,
      };
    };
    figures.oneInstance = await measure(cluster.gateways[0]!.url, 6, 10);
    figures.throughHaproxy = await measure(cluster.apiUrl, 12, 10);
    // What an order costs on disk: its row, both intents, their keys, the quote, its outbox event (none while no
    // endpoint wants it), and their indexes. orders and intents are partitioned: their parents hold nothing, their
    // months hold the rows.
    const [size] = await sql<{ orders: string; bytes: string }>(
      cluster.primaryUrl,
      `SELECT (SELECT count(*) FROM orders) AS orders,
              (SELECT sum(pg_total_relation_size(relid)) FROM (
                 SELECT relid FROM pg_partition_tree('orders') UNION ALL SELECT relid FROM pg_partition_tree('intents')) months)
                + pg_total_relation_size('order_keys') + pg_total_relation_size('swap_keys')
                + pg_total_relation_size('quotes') + pg_total_relation_size('webhook_events') AS bytes`,
    );
    figures.diskBytesPerOrder = Math.round(Number(size!.bytes) / Number(size!.orders));
    console.log('capacity', { oneInstance: figures.oneInstance, throughHaproxy: figures.throughHaproxy });
    expect((figures.oneInstance as { failed: number }).failed).toBe(0);
    expect((figures.throughHaproxy as { failed: number }).failed).toBe(0);
  });
});

describe('failures under a mixed load through HAProxy', () => {
  let load: MixedLoad;
  const phases: Record<string, PhaseFigures & { note?: string }> = {};
  beforeAll(() => {
    figures.failures = phases;
    load = new MixedLoad(cluster.apiUrl, { writers: 4, readers: 2 });
    load.start();
  });
  afterAll(async () => {
    await load?.stop();
  });

  /** Steady load, the fault, a while under it, the repair (if any), then a settle; figures over all of it. */
  async function phase(name: string, fault: () => Promise<void>, repair?: () => Promise<void>, underFaultMs = 6_000) {
    await sleep(2_000);
    const t0 = Date.now();
    await fault();
    await sleep(underFaultMs);
    await repair?.();
    await sleep(3_000);
    const result = load.figures(t0, Date.now());
    phases[name] = result;
    console.log(name, result);
    expect(result.acknowledged).toBeGreaterThan(0);
    expect(result.readAfterCreateMisses).toBe(0);
    return result;
  }

  it('kill -9 of one gateway: only requests in flight on it fail', async () => {
    const victim = cluster.gateways[1]!;
    const result = await phase(
      'killGateway',
      () => victim.kill('SIGKILL'),
      async () => {
        await victim.start();
        const statsPort = Number(new URL(cluster.haproxyStatsUrl).port);
        await waitFor('HAProxy to take the gateway back', async () => (await backendUp(statsPort, 'gateways')) === 3, 30_000);
      },
    );
    // At most one request of each of the 6 clients was in flight on it.
    expect(result.failed).toBeLessThanOrEqual(6);
  });

  it('stopping the replica: reads go to the primary, nothing fails', async () => {
    const replica = cluster.nodes[1]!;
    const result = await phase(
      'stopReplica',
      () => replica.stop(),
      async () => {
        replica.start();
        await waitFor('the replica to be the synchronous standby again', async () => (await replica.rest('/sync')) === 200, 90_000, 500);
      },
    );
    expect(result.failed).toBe(0);
  });

  it('restarting PgBouncer: requests fail only while it is away', async () => {
    const result = await phase('restartPgbouncer', () => cluster.pgbouncer.restart(), undefined, 3_000);
    expect(result.recoveryMs).toBeLessThan(10_000);
  });

  it('stopping Redis: nothing fails (each instance carries on alone, reads stay on the primary)', async () => {
    const result = await phase(
      'stopRedis',
      () => cluster.redis.kill(),
      () => cluster.redis.start(),
    );
    expect(result.failed).toBe(0);
  });

  it('kill -9 of the PostgreSQL primary: writes resume within 30 s through the same URL, no acknowledged order lost', async () => {
    const old = (await cluster.leader())!;
    const standby = cluster.nodes.find((n) => n !== old)!;
    expect(await standby.rest('/sync')).toBe(200);
    await sleep(2_000);
    const t0 = Date.now();
    await old.kill();
    await waitFor('a new leader', async () => (await standby.rest('/primary')) === 200, 60_000, 250);
    const promotedMs = Date.now() - t0;
    await waitFor(
      'writes to resume',
      () => load.samples.some((s) => s.kind === 'quote+order' && s.start > t0 + promotedMs - 1_000 && s.status === 201),
      60_000,
      100,
    );
    await sleep(3_000);
    const result = load.figures(t0, Date.now());
    const failedWrites = load.samples.filter((s) => s.kind === 'quote+order' && s.end >= t0 && s.status !== 201);
    const writesResumedMs = failedWrites.length === 0 ? 0 : Math.max(...failedWrites.map((s) => s.end)) - t0;
    phases.killPrimary = {
      ...result,
      note: `leader ${old.name} lost; ${standby.name} promoted after ${promotedMs} ms; writes resumed after ${writesResumedMs} ms`,
    };
    const reads = load.samples.filter((s) => (s.kind === 'list' || s.kind === 'stats') && s.end >= t0 && s.start <= t0 + writesResumedMs);
    figures.failover = {
      promotedMs,
      writesResumedMs,
      // Lists and statistics while writes were failing: served by the replica (HAProxy fails open to live gateways).
      readsDuringOutage: reads.length,
      readsFailedDuringOutage: reads.filter((s) => s.status !== 200).length,
    };
    console.log('killPrimary', phases.killPrimary);
    expect(writesResumedMs).toBeLessThan(30_000);
    expect(result.readAfterCreateMisses).toBe(0);

    // Every order acknowledged with 201, over the whole run, is on the new primary.
    await load.stop();
    const ids = [...load.acknowledged.keys()];
    const [found] = await sql<{ n: string }>(cluster.primaryUrl, 'SELECT count(*) AS n FROM orders WHERE id = ANY($1)', [ids]);
    const lost = ids.length - Number(found!.n);
    figures.acknowledgedOrders = ids.length;
    figures.acknowledgedOrdersLost = lost;
    expect(lost).toBe(0);
    // And the API reads them through the same URL.
    for (const id of ids.slice(-20)) expect((await call(cluster.apiUrl, 'GET', `/orders/${id}`, '10.0.0.7')).status).toBe(200);
  });
});
