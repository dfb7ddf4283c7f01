import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { DATABASE_TIMEOUT_DEFAULTS, type Config } from '../config.ts';
import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { PrismaClient } from '../generated/prisma/client.ts';
import { lockDataDir } from './data-dir-lock.ts';
import { applyMigrations, pendingMigrations, type MigrationTarget } from './migrate.ts';
import { fallbackAdapterFactory, fallbackReader } from './replicas/fallback.ts';
import { ReplicaSet, type ReplicaNode, type ReplicaState } from './replicas/health.ts';
import { createOrdersStore, type OrdersStore } from './orders-store.ts';
import { pgRowReader } from './pg-reader.ts';
import { statementNamer } from './prepared-statements.ts';
import { createRowStore, type RowStore } from './row-store.ts';
import { createClaimsStore } from './claims-store.ts';
import { createEscrowEventStore } from './escrow-store.ts';
import { createStatsStore } from './stats-store.ts';
import { createWebhookEndpointsStore, type WebhookEndpointsStore } from './webhook-endpoints-store.ts';
import type { ClaimsStore, EscrowEventStore } from '../domain/stores.ts';
import type { StatsStore } from '../domain/stats.ts';

export type DatabaseKind = 'postgres' | 'pglite';

/** Each SQL statement Prisma sends, with its parameters as Prisma prints them (a JSON array). */
export type QueryListener = (sql: string, params: string) => void;

export interface Database {
  prisma: PrismaClient;
  /**
   * The hot paths (list pages, quote and order writes), on the driver adapter under Prisma Client; on
   * PostgreSQL its reads go through pg directly (row-store.ts, pg-reader.ts).
   */
  rows: RowStore;
  /** Reading orders: by id, offset and keyset pages, counts (orders-store.ts). */
  orders: OrdersStore;
  /** Escrow events, each applied in one transaction under its order's lock (escrow-store.ts). */
  escrow: EscrowEventStore;
  /** Relayer claims as the API reads and queues them (claims-store.ts). */
  claims: ClaimsStore;
  /** Webhook endpoints and their deliveries as the API manages them (webhook-endpoints-store.ts). */
  webhooks: WebhookEndpointsStore;
  /** The statistics' rollups (stats-store.ts). */
  stats: StatsStore;
  kind: DatabaseKind;
  /** Cheap round trip for /ready. */
  ping(): Promise<void>;
  /** The driver under Prisma, for bulk statements Prisma has no API for (the bulk seed's array inserts). */
  driver: MigrationTarget;
  /** Streaming replicas for lag-tolerant reads (src/db/replicas/); undefined when none is configured. */
  replicas?: ReplicaSet;
  /** Connections of pg's pool, for the metrics; PGlite has one connection and no pool. */
  poolStats?(): { total: number; idle: number; waiting: number };
  close(): Promise<void>;
}

export interface PostgresOptions {
  url: string;
  /** Apply pending migrations instead of refusing to start (tests, `npm run db:migrate`). */
  migrate?: boolean;
  poolSize?: number;
  /**
   * Connecting (or waiting for a pooled connection); a statement, cancelled by PostgreSQL (SQLSTATE
   * 57014, answered 503); a round trip, abandoned by the client even when the server says nothing.
   */
  timeouts?: Config['database'];
  onPoolError?: (error: Error) => void;
  /** Name statements so each connection prepares them once (default on; off behind PgBouncer in transaction mode). */
  preparedStatements?: boolean;
  /** Called with each SQL statement Prisma sends (tests count them to prove there is no N+1). */
  onQuery?: QueryListener;
  /** Streaming replicas of `url` for lag-tolerant reads (README, Deployment). */
  replicas?: { urls: string[]; maxLagMs: number; checkMs: number; onChange?: (state: ReplicaState, usable: boolean) => void };
}

/**
 * The row store's sessions (its page reads, its quote and order writes) plan each statement once and keep that
 * plan (a generic plan). Their texts are fixed and their plans index-driven whatever the parameters, so a plan
 * made for one user serves all. Left to choose, PostgreSQL plans the pages again on every execution wherever
 * statistics are missing (a fresh install, a month's new partition): a LIMIT or OFFSET it cannot see makes the
 * generic plan look costlier than it is, so it keeps planning custom ones, each costing more than the page
 * (test/bench/README.md, What limits each path). JIT is off there: a generic plan's cost counts the LIMIT it
 * cannot see as a tenth of the table, which passes jit_above_cost, and compiling took far longer than the
 * page (JIT code is not kept between executions). A startup parameter, not a SET: PgBouncer would carry a SET
 * over to other clients' transactions.
 */
const GENERIC_PLANS = '-c plan_cache_mode=force_generic_plan -c jit=off';
export const ROW_STORE_APPLICATION = 'orderbook row store';

/**
 * A pg pool as the service opens it; `rowStore` for the row store's, whose sessions keep one plan per statement
 * (GENERIC_PLANS).
 */
export function postgresPool(
  url: string,
  options: Pick<PostgresOptions, 'poolSize' | 'timeouts' | 'onPoolError'>,
  { rowStore = false } = {},
): pg.Pool {
  const timeouts = options.timeouts ?? DATABASE_TIMEOUT_DEFAULTS;
  const pool = new pg.Pool({
    connectionString: url,
    options: rowStore ? GENERIC_PLANS : undefined,
    // Named, so pg_stat_activity tells the row store's sessions from the rest.
    application_name: rowStore ? ROW_STORE_APPLICATION : undefined,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: timeouts.connectTimeoutMs,
    idleTimeoutMillis: 30_000,
    // Behind PgBouncer in transaction mode these two are not passed on (README, Deployment): the
    // database carries them then (ALTER DATABASE ... SET).
    statement_timeout: timeouts.statementTimeoutMs,
    query_timeout: timeouts.queryTimeoutMs,
    idle_in_transaction_session_timeout: 30_000,
    // Every session in UTC, whatever the server's or database's default, before its first query: the driver
    // adapter sends times without an offset and reads them back by one rule, so any other zone shifts every
    // time it returns. PgBouncer tracks TimeZone per client, so this holds behind it too.
    onConnect: async (client) => void (await client.query(`SET TimeZone TO 'UTC'`)),
  });
  pool.on('error', (error) => options.onPoolError?.(error));
  return pool;
}

/**
 * PostgreSQL through a pg pool. Timeouts are explicit: pg waits forever by default, and a database
 * that is down, or alive but frozen, must turn into a quick 503, not a hung request. The client-side
 * query timeout is what bounds the frozen case: the server can enforce nothing while it is stopped.
 */
export async function openPostgres(options: PostgresOptions): Promise<Database> {
  const newPool = (url: string, rowStore = false) => postgresPool(url, options, { rowStore });
  const pool = newPool(options.url);

  const client = await pool.connect();
  try {
    const target = pgTarget(client);
    if (options.migrate) {
      await applyMigrations(target);
    } else {
      const pending = await pendingMigrations(target);
      if (pending.length > 0) {
        throw new Error(`database has ${pending.length} unapplied migration(s) (${pending.join(', ')}): run \`npm run db:migrate\``);
      }
    }
  } finally {
    client.release();
  }

  const named = options.preparedStatements === false ? undefined : statementNamer();
  const adapters = new PrismaPg(pool, { statementNameGenerator: named });
  const prisma = newClient(adapters, options.onQuery);
  const rowAdapter = await adapters.connect();
  // The row store's reads are a fixed set of texts: named apart from Prisma's, whose texts clients shape
  // (selections, IN lists) and may use up the namer's budget with.
  const readNames = options.preparedStatements === false ? undefined : statementNamer();
  // The row store has its own pool (README, Configuration: DATABASE_PREPARED_STATEMENTS), so its sessions' plan
  // mode stays theirs; with unnamed statements (prepared statements off) there is no plan to keep, and it shares
  // the main pool.
  const rowStorePool = (url: string, main: pg.Pool) => (readNames ? newPool(url, true) : main);
  const primaryRowStore = rowStorePool(options.url, pool);
  // Every pool of the primary, once each.
  const primaryPools = [...new Set([pool, primaryRowStore])];
  const primaryReader = pgRowReader(primaryRowStore, readNames);
  // Its writes too: the foreign-key checks of an order's intents then also keep one plan, where PostgreSQL,
  // left to choose, plans them for each order (the intents are partitioned).
  const rowStoreAdapter =
    primaryRowStore === pool ? rowAdapter : await new PrismaPg(primaryRowStore, { statementNameGenerator: readNames }).connect();

  let replicas: ReplicaSet | undefined;
  if (options.replicas && options.replicas.urls.length > 0) {
    const nodes = await Promise.all(
      options.replicas.urls.map(async (url): Promise<ReplicaNode> => {
        const replicaPool = newPool(url);
        const replicaRowStore = rowStorePool(url, replicaPool);
        const name = `${new URL(url).hostname}:${new URL(url).port || '5432'}`;
        const markDown = () => replicas?.markDown(name);
        const factory = fallbackAdapterFactory(new PrismaPg(replicaPool, { statementNameGenerator: named }), rowAdapter, markDown);
        const replicaPrisma = newClient(factory, options.onQuery);
        const replicaRows = await factory.connect();
        const replicaStore = createRowStore(
          replicaRows,
          options.onQuery,
          fallbackReader(pgRowReader(replicaRowStore, readNames), primaryReader, markDown),
        );
        return {
          name,
          target: {
            prisma: replicaPrisma,
            rows: replicaStore,
            orders: createOrdersStore(replicaPrisma, replicaStore),
            stats: createStatsStore(replicaPrisma),
            replica: name,
          },
          async replayState() {
            const { rows } = await replicaPool.query<{ in_recovery: boolean; replay_lsn: string | null }>(
              'SELECT pg_is_in_recovery() AS in_recovery, pg_last_wal_replay_lsn()::text AS replay_lsn',
            );
            return { inRecovery: rows[0]!.in_recovery, replayLsn: rows[0]!.replay_lsn };
          },
          async close() {
            await replicaPrisma.$disconnect();
            await replicaRows.dispose();
            await Promise.all([...new Set([replicaPool, replicaRowStore])].map((p) => p.end()));
          },
        };
      }),
    );
    replicas = new ReplicaSet({
      nodes,
      primaryLsn: async () => (await pool.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]!.lsn,
      maxLagMs: options.replicas.maxLagMs,
      checkMs: options.replicas.checkMs,
      onChange: options.replicas.onChange,
    });
    replicas.start();
    await replicas.check();
  }

  const rows = createRowStore(rowStoreAdapter, options.onQuery, primaryReader);
  return {
    prisma,
    rows,
    orders: createOrdersStore(prisma, rows),
    ...storesOn(prisma),
    kind: 'postgres',
    replicas,
    poolStats: () => {
      const sum = (count: (p: pg.Pool) => number) => primaryPools.reduce((total, p) => total + count(p), 0);
      return { total: sum((p) => p.totalCount), idle: sum((p) => p.idleCount), waiting: sum((p) => p.waitingCount) };
    },
    driver: {
      async exec(sql) {
        await pool.query(sql);
      },
      async query<T>(sql: string, params?: unknown[]) {
        return (await pool.query(sql, params)).rows as T[];
      },
    },
    async ping() {
      // Both pools: the row store's may be refused where the main one is not (a PgBouncer that rejects its
      // startup options), and it serves every page and every create.
      await Promise.all(primaryPools.map((p) => p.query('SELECT 1')));
    },
    async close() {
      await replicas?.stop();
      await Promise.all(replicas?.nodes.map((node) => node.close()) ?? []);
      await prisma.$disconnect();
      await rowAdapter.dispose();
      if (rowStoreAdapter !== rowAdapter) await rowStoreAdapter.dispose();
      await Promise.all(primaryPools.map((p) => p.end()));
    },
  };
}

/**
 * Embedded PostgreSQL (PGlite) on a data directory, or in memory when dataDir is undefined.
 * It always migrates itself: a newcomer runs `npm start` and has a working database. A data
 * directory is held by one process at a time (data-dir-lock.ts): a second one is refused.
 */
export async function openPglite(dataDir: string | undefined, onQuery?: QueryListener): Promise<Database> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const lock = dataDir ? lockDataDir(dataDir) : undefined;
  let pglite: PGlite;
  try {
    pglite = await PGlite.create(dataDir);
    await applyMigrations(pgliteTarget(pglite));
  } catch (error) {
    lock?.release();
    throw error;
  }
  const adapters = new PrismaPGlite(pglite);
  const prisma = newClient(adapters, onQuery);
  const rowAdapter = await adapters.connect();
  const rows = createRowStore(rowAdapter, onQuery);
  return {
    prisma,
    rows,
    orders: createOrdersStore(prisma, rows),
    ...storesOn(prisma),
    kind: 'pglite',
    driver: pgliteTarget(pglite),
    async ping() {
      await pglite.query('SELECT 1');
    },
    async close() {
      await prisma.$disconnect();
      await rowAdapter.dispose();
      await pglite.close();
      lock?.release();
    },
  };
}

/** The stores over Prisma Client, beside the orders store and the row store. */
function storesOn(prisma: PrismaClient): Pick<Database, 'escrow' | 'claims' | 'webhooks' | 'stats'> {
  return {
    escrow: createEscrowEventStore(prisma),
    claims: createClaimsStore(prisma),
    webhooks: createWebhookEndpointsStore(prisma),
    stats: createStatsStore(prisma),
  };
}

function newClient(adapter: SqlDriverAdapterFactory, onQuery?: QueryListener): PrismaClient {
  if (!onQuery) return new PrismaClient({ adapter });
  const prisma = new PrismaClient({ adapter, log: [{ level: 'query', emit: 'event' }] });
  prisma.$on('query', (event) => onQuery(event.query, event.params));
  return prisma;
}

export function pgTarget(client: pg.ClientBase): MigrationTarget {
  return {
    async exec(sql) {
      await client.query(sql);
    },
    async query<T>(sql: string, params?: unknown[]) {
      return (await client.query(sql, params)).rows as T[];
    },
  };
}

export function pgliteTarget(pglite: PGlite): MigrationTarget {
  return {
    async exec(sql) {
      await pglite.exec(sql);
    },
    async query<T>(sql: string, params?: unknown[]) {
      return (await pglite.query<T>(sql, params)).rows;
    },
  };
}
