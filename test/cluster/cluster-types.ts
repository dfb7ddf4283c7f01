import type { Service } from './processes.ts';

/** What the topology harness (topology.ts) starts and hands its tests. */

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
