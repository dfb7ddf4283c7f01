import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { pgTarget } from '../../src/db/database.ts';
import { applyMigrations } from '../../src/db/migrate.ts';
import { redisAnswers } from '../support/redis.ts';
import { freePort } from '../support/server-process.ts';
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
export interface PgNode {
  name: string;
  pgPort: number;
  restPort: number;
  dataDir: string;
  patroni: Service | undefined;
  /** Starts (or restarts) this node's Patroni, which starts its PostgreSQL. */
  start(): void;
  /** Stops Patroni cleanly: it stops PostgreSQL and leaves the cluster. */
  stop(): Promise<void>;
  /** Loses the node at once: Patroni and the postmaster with its backends, SIGKILL. */
  kill(): Promise<void>;
  /** GET on this node's Patroni REST API: the HTTP status (0 when it does not answer). */
  rest(path: string): Promise<number>;
}

export interface Gateway {
  name: string;
  port: number;
  url: string;
  service: Service | undefined;
  start(): Promise<void>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export interface Cluster {
  dir: string;
  /** The one URL clients use: HAProxy in front of the gateways. */
  apiUrl: string;
  /** What the gateways get as DATABASE_URL: PgBouncer. */
  databaseUrl: string;
  /** What the gateways get as DATABASE_REPLICA_URL: HAProxy's replica port. */
  replicaUrl: string;
  /** Straight to the current leader through HAProxy (no PgBouncer): migrations, checks. */
  primaryUrl: string;
  redisUrl: string;
  haproxyStatsUrl: string;
  etcdUrl: string;
  watcherKey: string;
  nodes: PgNode[];
  gateways: Gateway[];
  pgbouncer: { url: string; restart(): Promise<void>; kill(): Promise<void>; start(): Promise<void> };
  redis: { kill(): Promise<void>; start(): Promise<void> };
  /** The node whose Patroni answers /primary, if any. */
  leader(): Promise<PgNode | undefined>;
  /**
   * Patroni's maintenance mode on or off, once every node's Patroni has seen it. While it is on Patroni
   * neither fails over nor touches PostgreSQL: on PostgreSQL 14+ its HA loop otherwise resumes a replay
   * that someone paused, within one loop_wait.
   */
  maintenance(on: boolean): Promise<void>;
  /** Lines describing every URL, for `npm run cluster`. */
  describe(): string;
  stop(): Promise<void>;
}

export interface ClusterOptions {
  /** Gateways behind HAProxy (default 3). */
  gateways?: number;
  /** Extra environment for every gateway. */
  gatewayEnv?: Record<string, string>;
  /** Keep the folder after stop (logs), for debugging. */
  keepDir?: boolean;
  log?: (line: string) => void;
}

const ROOT = resolve(import.meta.dirname, '../..');
const PG_BIN = join('/usr/lib/postgresql', readdirSync('/usr/lib/postgresql').sort().at(-1)!, 'bin');
const DATABASE = 'orderbook';

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
    await withClient(`postgresql://postgres@127.0.0.1:${haPrimary}/postgres`, async (c) => {
      await c.query(`CREATE DATABASE ${DATABASE}`);
      // PgBouncer cannot pass the pool's startup parameters (statement_timeout and
      // idle_in_transaction_session_timeout) to the server, so the database carries them (README, Deployment).
      await c.query(`ALTER DATABASE ${DATABASE} SET statement_timeout = '5s'`);
      await c.query(`ALTER DATABASE ${DATABASE} SET idle_in_transaction_session_timeout = '30s'`);
    });
    await withClient(primaryUrl, (c) => applyMigrations(pgTarget(c)));
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

function patroniConfig(o: { name: string; pgPort: number; restPort: number; etcdClient: number; nodeDir: string; dataDir: string }) {
  return {
    scope: 'orderbook',
    name: o.name,
    log: { level: 'WARNING' },
    restapi: { listen: `127.0.0.1:${o.restPort}`, connect_address: `127.0.0.1:${o.restPort}` },
    etcd3: { hosts: [`127.0.0.1:${o.etcdClient}`] },
    bootstrap: {
      dcs: {
        // Failure detection: the leader key lives `ttl` seconds; a replica takes over after it lapses.
        ttl: 10,
        loop_wait: 1,
        retry_timeout: 3,
        maximum_lag_on_failover: 1048576,
        // A commit is acknowledged only once the synchronous standby has it (README, Deployment).
        synchronous_mode: true,
        postgresql: {
          use_pg_rewind: false,
          parameters: {
            wal_level: 'replica',
            hot_standby: 'on',
            max_wal_senders: 10,
            max_replication_slots: 10,
            wal_keep_size: '256MB',
            max_connections: 200,
            // Replicas report what they have applied often, for the lag checks (src/db/replicas/).
            wal_receiver_status_interval: '1s',
            hot_standby_feedback: 'on',
          },
        },
      },
      initdb: [{ encoding: 'UTF8' }, { locale: 'C' }],
    },
    postgresql: {
      listen: `127.0.0.1:${o.pgPort}`,
      connect_address: `127.0.0.1:${o.pgPort}`,
      data_dir: o.dataDir,
      bin_dir: PG_BIN,
      pgpass: join(o.nodeDir, 'pgpass'),
      authentication: {
        superuser: { username: 'postgres', password: 'postgres' },
        replication: { username: 'postgres', password: 'postgres' },
      },
      parameters: { unix_socket_directories: o.nodeDir },
      pg_hba: ['local all all trust', 'host all all 127.0.0.1/32 trust', 'host replication all 127.0.0.1/32 trust'],
      basebackup: [{ checkpoint: 'fast' }],
    },
    tags: { nofailover: false, noloadbalance: false, clonefrom: false, nosync: false },
  };
}

function haproxyCfg(o: {
  haApi: number;
  haPrimary: number;
  haReplica: number;
  haStats: number;
  gateways: Gateway[];
  nodes: PgNode[];
}): string {
  const pgServers = o.nodes.map((n) => `  server ${n.name} 127.0.0.1:${n.pgPort} check port ${n.restPort}`).join('\n');
  return `global
  maxconn 4096

defaults
  timeout connect 2s
  timeout client 1h
  timeout server 1h
  # A connection refused (the instance is gone) is tried again on another server.
  retries 3
  option redispatch

listen stats
  mode http
  bind 127.0.0.1:${o.haStats}
  stats enable
  stats uri /
  stats refresh 5s

frontend api
  mode http
  bind 127.0.0.1:${o.haApi}
  option forwardfor
  timeout client 60s
  # /ready fails on every instance at once while the PostgreSQL primary is away (failover): rather than
  # answer everything with HAProxy's own 503, send requests to the instances that are alive. Reads that
  # a replica can serve keep working; writes get the gateway's 503 envelope with Retry-After.
  use_backend gateways_live if { nbsrv(gateways) eq 0 }
  default_backend gateways

${gatewayBackend('gateways', '/ready', o.gateways)}

${gatewayBackend('gateways_live', '/health', o.gateways)}

# PostgreSQL: the Patroni REST API says which node leads (/primary) and which replicate (/replica).
listen pg_primary
  mode tcp
  bind 127.0.0.1:${o.haPrimary}
  option httpchk GET /primary
  http-check expect status 200
  default-server inter 1s fastinter 500ms fall 2 rise 1 on-marked-down shutdown-sessions
${pgServers}

listen pg_replica
  mode tcp
  bind 127.0.0.1:${o.haReplica}
  balance leastconn
  option httpchk GET /replica
  http-check expect status 200
  default-server inter 1s fastinter 500ms fall 2 rise 1 on-marked-down shutdown-sessions
${pgServers}
`;
}

/**
 * The gateways as an HAProxy backend, health-checked on `checkPath`. A GET cut off by an instance that died
 * is asked again of another; a POST only when it never left (conn-failure): a write is not repeated behind
 * the client's back.
 */
function gatewayBackend(name: string, checkPath: string, gateways: Gateway[]): string {
  return `backend ${name}
  mode http
  balance roundrobin
  timeout server 60s
  retry-on conn-failure empty-response response-timeout
  http-request disable-l7-retry unless METH_GET
  option httpchk
  http-check send meth GET uri ${checkPath} ver HTTP/1.1 hdr Host gateway
  http-check expect status 200
  default-server inter 1s fastinter 500ms downinter 1s fall 2 rise 2 on-marked-down shutdown-sessions
${gateways.map((g) => `  server ${g.name} 127.0.0.1:${g.port} check`).join('\n')}`;
}

function pgbouncerIni(o: { bouncerPort: number; haPrimary: number; bouncerDir: string }): string {
  return `[databases]
${DATABASE} = host=127.0.0.1 port=${o.haPrimary} dbname=${DATABASE}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${o.bouncerPort}
unix_socket_dir =
auth_type = trust
auth_file = ${o.bouncerDir}/../userlist.txt
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 20
; node-postgres sends these at connect; PgBouncer cannot keep per-client settings in transaction mode,
; so the database carries them instead (ALTER DATABASE ... SET).
ignore_startup_parameters = extra_float_digits,statement_timeout,idle_in_transaction_session_timeout
; After a failover the old leader's connections are cut: reconnect at once through HAProxy.
server_login_retry = 1
server_connect_timeout = 3
query_wait_timeout = 10
pidfile = ${o.bouncerDir}/pgbouncer.pid
admin_users = postgres
`;
}
