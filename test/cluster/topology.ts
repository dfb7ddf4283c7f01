import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { pgTarget } from '../../src/db/database.ts';
import { applyMigrations } from '../../src/db/migrate.ts';
import { redisAnswers } from '../support/redis.ts';
import { freePort } from '../support/server-process.ts';
import type { Cluster, ClusterOptions, Gateway, PgNode } from './cluster-types.ts';
import { DATABASE, PG_BIN, haproxyCfg, patroniConfig, pgbouncerIni } from './configs.ts';
import { killEverything, killPostmaster, startService, trackPostmaster, waitFor, type Service } from './processes.ts';

/**
 * The deployment topology of README "Deployment", on loopback, in a temporary folder of its own:
 *
 *   clients ─▶ HAProxy :api ─▶ gateway ×3 (node dist/server.js; health check GET /ready)
 *   gateway ─▶ PgBouncer (transaction pooling) ─▶ HAProxy :pg-primary ─▶ the Patroni leader
 *   gateway ─▶ HAProxy :pg-replica (DATABASE_REPLICA_URL) ─▶ the Patroni replica (streaming, pg_basebackup)
 *   Patroni ×2 (etcd as the DCS; synchronous_mode) manage the two PostgreSQL nodes; HAProxy asks each
 *   node's Patroni REST API (/primary, /replica) where to send connections, so no URL changes on failover.
 *   gateway ─▶ Redis (a private redis-server)
 *
 * Every port is chosen by the OS; nothing touches the machine's PostgreSQL or Redis.
 */

export type { Cluster, ClusterOptions, Gateway, PgNode } from './cluster-types.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/** uid/gid of the `postgres` user: PostgreSQL and PgBouncer refuse to run as root. */
function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid };
}

export function requireTools(): void {
  const missing = ['haproxy', 'pgbouncer', 'patroni', 'etcd', 'redis-server'].filter((tool) => {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'pipe' });
      return false;
    } catch {
      return true;
    }
  });
  if (missing.length > 0) {
    throw new Error(`missing ${missing.join(', ')}: apt-get install -y haproxy pgbouncer patroni etcd-server redis-server`);
  }
  if (!existsSync(join(ROOT, 'dist/server.js'))) throw new Error('dist/server.js is missing: run npm run build');
}

export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  requireTools();
  const log = options.log ?? (() => undefined);
  const dir = mkdtempSync(join(tmpdir(), 'obg-cluster-'));
  chmodSync(dir, 0o777);
  const user = postgresUser();
  const ports = async (n: number) => {
    const taken = new Set<number>();
    const out: number[] = [];
    while (out.length < n) {
      const port = await freePort();
      if (!taken.has(port)) {
        taken.add(port);
        out.push(port);
      }
    }
    return out;
  };
  const gatewayCount = options.gateways ?? 3;
  const all = await ports(8 + 4 + gatewayCount);
  const port = (i: number) => all[i]!;
  const [etcdClient, etcdPeer, haApi, haPrimary, haReplica, haStats, bouncerPort, redisPort] = [0, 1, 2, 3, 4, 5, 6, 7].map(port) as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const pgPorts = [port(8), port(9)];
  const restPorts = [port(10), port(11)];
  const gatewayPorts = all.slice(12);

  const stops: Array<() => Promise<void>> = [];
  const cleanup = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    killEverything();
    if (!options.keepDir) rmSync(dir, { recursive: true, force: true });
  };

  try {
    // etcd: Patroni's distributed configuration store (one member: enough for one machine's harness).
    mkdirSync(join(dir, 'etcd'));
    const etcd = startService(
      'etcd',
      'etcd',
      [
        '--name=etcd1',
        `--data-dir=${join(dir, 'etcd/data')}`,
        `--listen-client-urls=http://127.0.0.1:${etcdClient}`,
        `--advertise-client-urls=http://127.0.0.1:${etcdClient}`,
        `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
        `--initial-cluster=etcd1=http://127.0.0.1:${etcdPeer}`,
        '--listen-metrics-urls=',
        '--log-level=warn',
      ],
      { log: join(dir, 'etcd.log') },
    );
    stops.push(() => etcd.kill('SIGTERM'));
    await waitFor('etcd', async () => (await fetch(`http://127.0.0.1:${etcdClient}/health`)).ok, 30_000);
    log(`etcd on 127.0.0.1:${etcdClient}`);

    // Two PostgreSQL nodes under Patroni; the first to take the leader key bootstraps (initdb), the other
    // becomes its streaming replica through pg_basebackup.
    const nodes: PgNode[] = pgPorts.map((pgPort, i) => {
      const name = `pg${i + 1}`;
      const restPort = restPorts[i]!;
      const nodeDir = join(dir, name);
      mkdirSync(nodeDir, { mode: 0o700 });
      if (user) execFileSync('chown', [`${user.uid}:${user.gid}`, nodeDir]);
      const dataDir = join(nodeDir, 'data');
      const config = patroniConfig({ name, pgPort, restPort, etcdClient, nodeDir, dataDir });
      const configFile = join(dir, `${name}.yml`);
      // YAML is a superset of JSON.
      writeFileSync(configFile, JSON.stringify(config, null, 2));
      trackPostmaster(dataDir);
      const node: PgNode = {
        name,
        pgPort,
        restPort,
        dataDir,
        patroni: undefined,
        start() {
          node.patroni = startService(name, 'patroni', [configFile], {
            log: join(dir, `${name}.log`),
            user,
            // Its own folder: the checkout may be closed to the postgres user (a clone made with mktemp -d is
            // 0700), and Patroni's worker processes change into their parent's directory first.
            cwd: nodeDir,
            env: { HOME: nodeDir, PATH: `${PG_BIN}:${process.env.PATH}` },
          });
        },
        async stop() {
          await node.patroni?.kill('SIGTERM');
          killPostmaster(join(dataDir, 'postmaster.pid'));
        },
        async kill() {
          // The machine is lost: its Patroni cannot demote anything or release the leader key.
          await Promise.all([node.patroni?.kill('SIGKILL'), Promise.resolve(killPostmaster(join(dataDir, 'postmaster.pid')))]);
        },
        async rest(path) {
          try {
            const response = await fetch(`http://127.0.0.1:${restPort}${path}`, { signal: AbortSignal.timeout(2_000) });
            await response.body?.cancel();
            return response.status;
          } catch {
            return 0;
          }
        },
      };
      return node;
    });
    stops.push(async () => {
      await Promise.all(nodes.map((n) => n.patroni?.kill('SIGKILL')));
      for (const n of nodes) killPostmaster(join(n.dataDir, 'postmaster.pid'));
    });
    nodes[0]!.start();
    await waitFor('the first PostgreSQL node to lead', async () => (await nodes[0]!.rest('/primary')) === 200, 90_000, 500);
    nodes[1]!.start();
    log(`PostgreSQL leader ${nodes[0]!.name} on 127.0.0.1:${nodes[0]!.pgPort}`);

    // HAProxy: the API in front of the gateways, and PostgreSQL's leader and replica ports.
    const gateways: Gateway[] = gatewayPorts.map((port, i) => ({ name: `gw${i + 1}`, port, url: `http://127.0.0.1:${port}` })) as Gateway[];
    const haproxyConfig = haproxyCfg({ haApi, haPrimary, haReplica, haStats, gateways, nodes });
    writeFileSync(join(dir, 'haproxy.cfg'), haproxyConfig);
    const haproxy = startService('haproxy', 'haproxy', ['-db', '-f', join(dir, 'haproxy.cfg')], { log: join(dir, 'haproxy.log') });
    stops.push(() => haproxy.kill('SIGTERM'));

    const primaryUrl = `postgresql://postgres@127.0.0.1:${haPrimary}/${DATABASE}`;
    await waitFor(
      'PostgreSQL through HAProxy',
      async () => {
        await withClient(`postgresql://postgres@127.0.0.1:${haPrimary}/postgres`, (c) => c.query('SELECT 1'));
        return true;
      },
      30_000,
      300,
    );
    // Retried as a whole: in the first seconds HAProxy may still cut a session while its checks settle
    // (`on-marked-down shutdown-sessions`), and every step here can run again.
    await waitFor(
      'the database created and migrated',
      async () => {
        await withClient(`postgresql://postgres@127.0.0.1:${haPrimary}/postgres`, async (c) => {
          const exists = (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE])).rowCount === 1;
          if (!exists) await c.query(`CREATE DATABASE ${DATABASE}`);
          // PgBouncer cannot pass the pool's startup parameters (statement_timeout and
          // idle_in_transaction_session_timeout) to the server, so the database carries them (README, Deployment).
          await c.query(`ALTER DATABASE ${DATABASE} SET statement_timeout = '5s'`);
          await c.query(`ALTER DATABASE ${DATABASE} SET idle_in_transaction_session_timeout = '30s'`);
        });
        await withClient(primaryUrl, (c) => applyMigrations(pgTarget(c)));
        return true;
      },
      60_000,
      500,
    );
    log('database migrated');

    // PgBouncer in transaction mode in front of HAProxy's leader port.
    const bouncerDir = join(dir, 'pgbouncer');
    mkdirSync(bouncerDir);
    if (user) execFileSync('chown', [`${user.uid}:${user.gid}`, bouncerDir]);
    writeFileSync(join(dir, 'pgbouncer.ini'), pgbouncerIni({ bouncerPort, haPrimary, bouncerDir }));
    writeFileSync(join(dir, 'userlist.txt'), '"postgres" ""\n');
    let bouncer: Service | undefined;
    const databaseUrl = `postgresql://postgres@127.0.0.1:${bouncerPort}/${DATABASE}`;
    const startBouncer = async () => {
      bouncer = startService('pgbouncer', 'pgbouncer', [join(dir, 'pgbouncer.ini')], { log: join(dir, 'pgbouncer.log'), user, cwd: dir });
      await waitFor('PgBouncer', () => withClient(databaseUrl, (c) => c.query('SELECT 1')).then(() => true), 30_000, 100);
    };
    await startBouncer();
    stops.push(async () => bouncer?.kill('SIGKILL'));

    // Redis of our own.
    let redis: Service | undefined;
    const startRedis = async () => {
      redis = startService(
        'redis',
        'redis-server',
        ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        {
          log: join(dir, 'redis.log'),
        },
      );
      await waitFor('Redis', () => redisAnswers(redisPort), 10_000, 100);
    };
    await startRedis();
    stops.push(async () => redis?.kill('SIGKILL'));

    // The replica must stream (and be the synchronous standby) before the gateways start.
    await waitFor('the replica to stream as synchronous standby', async () => (await nodes[1]!.rest('/sync')) === 200, 90_000, 500);
    log(`PostgreSQL replica ${nodes[1]!.name} on 127.0.0.1:${nodes[1]!.pgPort} (synchronous)`);

    const watcherKey = 'cluster-watcher';
    const replicaUrl = `postgresql://postgres@127.0.0.1:${haReplica}/${DATABASE}`;
    const gatewayEnv = {
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      DATABASE_REPLICA_URL: replicaUrl,
      // PgBouncer before 1.21 (Debian has 1.18) cannot carry prepared statements in transaction mode.
      DATABASE_PREPARED_STATEMENTS: 'off',
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      TRUST_PROXY: 'true',
      WATCHER_KEY: watcherKey,
      LOG_LEVEL: 'warn',
      STATS_CACHE_SECONDS: '2',
      SHUTDOWN_GRACE_SECONDS: '2',
      ...options.gatewayEnv,
    };
    for (const gateway of gateways) {
      gateway.start = async () => {
        gateway.service = startService(gateway.name, process.execPath, ['dist/server.js'], {
          cwd: ROOT,
          log: join(dir, `${gateway.name}.log`),
          env: { ...gatewayEnv, PORT: String(gateway.port) },
        });
        await waitFor(`${gateway.name} ready`, async () => (await fetch(`${gateway.url}/ready`)).ok, 60_000, 100);
      };
      gateway.kill = async (signal = 'SIGKILL') => gateway.service?.kill(signal);
    }
    await Promise.all(gateways.map((g) => g.start()));
    stops.push(async () => void (await Promise.all(gateways.map((g) => g.kill('SIGTERM')))));
    const apiUrl = `http://127.0.0.1:${haApi}`;
    await waitFor('HAProxy to see every gateway up', async () => (await backendUp(haStats, 'gateways')) === gateways.length, 30_000, 200);
    log(`API on ${apiUrl}`);

    const cluster: Cluster = {
      dir,
      apiUrl,
      databaseUrl,
      replicaUrl,
      primaryUrl,
      redisUrl: `redis://127.0.0.1:${redisPort}`,
      haproxyStatsUrl: `http://127.0.0.1:${haStats}/`,
      etcdUrl: `http://127.0.0.1:${etcdClient}`,
      watcherKey,
      nodes,
      gateways,
      pgbouncer: {
        url: databaseUrl,
        async kill() {
          await bouncer?.kill('SIGKILL');
        },
        start: startBouncer,
        async restart() {
          await bouncer?.kill('SIGTERM');
          await startBouncer();
        },
      },
      redis: {
        async kill() {
          await redis?.kill('SIGKILL');
        },
        start: startRedis,
      },
      async leader() {
        for (const node of nodes) if ((await node.rest('/primary')) === 200) return node;
        return undefined;
      },
      async maintenance(on) {
        const leader = await cluster.leader();
        if (!leader) throw new Error('no Patroni leader to ask for maintenance mode');
        const response = await fetch(`http://127.0.0.1:${leader.restPort}/config`, {
          method: 'PATCH',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ pause: on }),
          signal: AbortSignal.timeout(5_000),
        });
        if (!response.ok) throw new Error(`Patroni refused maintenance mode ${on}: ${response.status} ${await response.text()}`);
        // Each Patroni reads the change from etcd on its next loop; /patroni then says `pause: true`.
        const paused = async (node: PgNode) => {
          const status = await fetch(`http://127.0.0.1:${node.restPort}/patroni`, { signal: AbortSignal.timeout(2_000) })
            .then((r) => r.json() as Promise<{ pause?: boolean }>)
            .catch(() => undefined);
          return status !== undefined && (status.pause === true) === on;
        };
        await waitFor(
          `every Patroni to ${on ? 'enter' : 'leave'} maintenance mode`,
          async () => (await Promise.all(nodes.map(paused))).every(Boolean),
          15_000,
          100,
        );
      },
      describe: () =>
        [
          `API (HAProxy -> ${gateways.length} gateways)  ${apiUrl}`,
          ...gateways.map((g) => `  ${g.name}                           ${g.url}`),
          `DATABASE_URL (PgBouncer)             ${databaseUrl}`,
          `DATABASE_REPLICA_URL (HAProxy)       ${replicaUrl}`,
          `leader (HAProxy, no pooling)         ${primaryUrl}`,
          ...nodes.map((n) => `  ${n.name}: postgresql://postgres@127.0.0.1:${n.pgPort}  Patroni http://127.0.0.1:${n.restPort}`),
          `Redis                                redis://127.0.0.1:${redisPort}`,
          `etcd                                 http://127.0.0.1:${etcdClient}`,
          `HAProxy stats                        http://127.0.0.1:${haStats}/`,
          `folder (configs, logs)               ${dir}`,
        ].join('\n'),
      stop: cleanup,
    };
    return cluster;
  } catch (error) {
    await cleanup();
    throw error;
  }
}

async function withClient<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Servers of a HAProxy backend that are UP, from its CSV statistics page. */
export async function backendUp(statsPort: number, backend: string): Promise<number> {
  const csv = await (await fetch(`http://127.0.0.1:${statsPort}/;csv`)).text();
  return csv
    .split('\n')
    .map((line) => line.split(','))
    .filter((f) => f[0] === backend && f[1] !== 'BACKEND' && f[1] !== 'FRONTEND' && f[17]?.startsWith('UP')).length;
}
