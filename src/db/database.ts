import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { DATABASE_TIMEOUT_DEFAULTS, type Config } from '../config.ts';
import { PrismaClient } from '../generated/prisma/client.ts';
import { lockDataDir } from './data-dir-lock.ts';
import { applyMigrations, pendingMigrations, type MigrationTarget } from './migrate.ts';
import { createRowStore, type RowStore } from './row-store.ts';

export type DatabaseKind = 'postgres' | 'pglite';

/** Each SQL statement Prisma sends, with its parameters as Prisma prints them (a JSON array). */
export type QueryListener = (sql: string, params: string) => void;

export interface Database {
  prisma: PrismaClient;
  /** The hot paths (list pages, quote and order writes), on the driver adapter under Prisma Client (row-store.ts). */
  rows: RowStore;
  kind: DatabaseKind;
  /** Cheap round trip for /ready. */
  ping(): Promise<void>;
  /** The driver under Prisma, for bulk statements Prisma has no API for (the bulk seed's array inserts). */
  driver: MigrationTarget;
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
  /** Called with each SQL statement Prisma sends (tests count them to prove there is no N+1). */
  onQuery?: QueryListener;
}

/**
 * PostgreSQL through a pg pool. Timeouts are explicit: pg waits forever by default, and a database
 * that is down, or alive but frozen, must turn into a quick 503, not a hung request. The client-side
 * query timeout is what bounds the frozen case: the server can enforce nothing while it is stopped.
 */
export async function openPostgres(options: PostgresOptions): Promise<Database> {
  const timeouts = options.timeouts ?? DATABASE_TIMEOUT_DEFAULTS;
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: timeouts.connectTimeoutMs,
    idleTimeoutMillis: 30_000,
    statement_timeout: timeouts.statementTimeoutMs,
    query_timeout: timeouts.queryTimeoutMs,
    idle_in_transaction_session_timeout: 30_000,
  });
  pool.on('error', (error) => options.onPoolError?.(error));

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

  const adapters = new PrismaPg(pool);
  const prisma = newClient(adapters, options.onQuery);
  const rowAdapter = await adapters.connect();
  return {
    prisma,
    rows: createRowStore(rowAdapter, options.onQuery),
    kind: 'postgres',
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    driver: {
      async exec(sql) {
        await pool.query(sql);
      },
      async query<T>(sql: string, params?: unknown[]) {
        return (await pool.query(sql, params)).rows as T[];
      },
    },
    async ping() {
      await pool.query('SELECT 1');
    },
    async close() {
      await prisma.$disconnect();
      await rowAdapter.dispose();
      await pool.end();
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
  return {
    prisma,
    rows: createRowStore(rowAdapter, onQuery),
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

function newClient(adapter: PrismaPg | PrismaPGlite, onQuery?: QueryListener): PrismaClient {
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
