import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Gateway, PgNode } from './cluster-types.ts';

/** The configuration files of the topology's services: Patroni, HAProxy, PgBouncer. */

export const PG_BIN = join('/usr/lib/postgresql', readdirSync('/usr/lib/postgresql').sort().at(-1)!, 'bin');
export const DATABASE = 'orderbook';

export function patroniConfig(o: { name: string; pgPort: number; restPort: number; etcdClient: number; nodeDir: string; dataDir: string }) {
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

export function haproxyCfg(o: {
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
export function gatewayBackend(name: string, checkPath: string, gateways: Gateway[]): string {
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

export function pgbouncerIni(o: { bouncerPort: number; haPrimary: number; bouncerDir: string }): string {
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
; so the database carries them instead (ALTER DATABASE ... SET). options carries the page reads' plan mode,
; sent only with prepared statements on (src/db/database.ts).
ignore_startup_parameters = extra_float_digits,statement_timeout,idle_in_transaction_session_timeout,options
; After a failover the old leader's connections are cut: reconnect at once through HAProxy.
server_login_retry = 1
server_connect_timeout = 3
query_wait_timeout = 10
pidfile = ${o.bouncerDir}/pgbouncer.pid
admin_users = postgres
`;
}
