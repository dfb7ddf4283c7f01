import pino from 'pino';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { test as base } from 'vitest';
import type { App } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import type { Database, PostgresOptions, QueryListener } from '../../src/db/database.ts';
import { memoryStatsCache, type StatsCache } from '../../src/domain/stats-cache.ts';
import { createRuntime, type Runtime } from '../../src/runtime.ts';
import { openTestDatabase } from './database.ts';
import { checkAgainstOpenApi } from './openapi.ts';

/**
 * A parsed JSON body as a test reads it: fields are read directly and their shape is what the
 * test's expect() calls check.
 */
// biome-ignore lint/suspicious/noExplicitAny: the one loose type of the tests, for JSON the server sent
export type Json = any;

/** The watcher key every test app accepts. */
export const WATCHER_KEY = 'test-watcher-key';

/** A movable clock: tests expire quotes and orders by moving it, not by sleeping. */
export class TestClock {
  constructor(private current = new Date(Math.floor(Date.now() / 1000) * 1000)) {}
  now = () => new Date(this.current);
  advance(seconds: number) {
    this.current = new Date(this.current.getTime() + seconds * 1000);
  }
  set(at: Date) {
    this.current = new Date(at);
  }
}

export interface TestApp {
  app: App;
  runtime: Runtime;
  db: Database;
  config: Config;
  clock: TestClock;
  statsCache: StatsCache;
  logger: Logger;
  /** REST call; returns status, headers and the parsed JSON body (or text). */
  rest(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<RestReply>;
  /** GraphQL call over HTTP. */
  gql(query: string, variables?: Record<string, unknown>): Promise<GqlReply>;
  close(): Promise<void>;
}

export interface RestReply {
  status: number;
  headers: Headers;
  body: Json;
}

export interface GqlReply {
  status: number;
  data: Json;
  errors?: { message: string; extensions?: { code?: string } }[];
}

export interface TestAppOptions {
  env?: Record<string, string>;
  onQuery?: QueryListener;
  /** Short PostgreSQL timeouts for a database opened for this app (PGlite has none). */
  databaseTimeouts?: PostgresOptions['timeouts'];
  /** Share one database between several app instances. */
  db?: Database;
  statsCache?: StatsCache;
  redis?: { client: Redis; subscriber: Redis };
  logger?: Logger;
}

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', WATCHER_KEY, ...options.env });
  const db = options.db ?? (await openTestDatabase({ onQuery: options.onQuery, timeouts: options.databaseTimeouts }));
  const clock = new TestClock();
  const statsCache = options.statsCache ?? memoryStatsCache(config.statsCacheSeconds, () => clock.now().getTime());
  const logger = options.logger ?? pino({ level: 'silent' });
  const runtime = createRuntime({
    config,
    db,
    logger,
    now: clock.now,
    statsCache,
    redis: options.redis,
  });
  const { app } = runtime;
  return {
    app,
    runtime,
    db,
    config,
    clock,
    statsCache,
    logger,
    async rest(method, path, body, headers = {}) {
      const init: RequestInit = { method, headers: { ...headers } };
      if (body !== undefined) {
        init.body = typeof body === 'string' ? body : JSON.stringify(body);
        (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
      }
      const response = await app.fetch(`http://test${path}`, init);
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // plain text (health) stays text
      }
      checkAgainstOpenApi(method, path, response.status, response.headers.get('content-type'), parsed);
      return { status: response.status, headers: response.headers, body: parsed };
    },
    async gql(query, variables) {
      const response = await app.fetch('http://test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
        body: JSON.stringify({ query, variables }),
      });
      const json = (await response.json()) as Omit<GqlReply, 'status'>;
      return { status: response.status, ...json };
    },
    async close() {
      await runtime.stop();
      if (!options.db) await db.close();
    },
  };
}

/**
 * Opens a further app; see `apps` on the suite's `it`. `freshDatabase` gives it a database of its own (closed
 * with it) instead of the file's, for a test that counts every row or every statement.
 */
export type OpenApp = (options?: TestAppOptions & { freshDatabase?: boolean }) => Promise<TestApp>;

/**
 * The suite's `it`: a test (or `it.beforeAll`) that asks for `t` gets the file's test app, made once per
 * file (vitest's file-scoped fixture) and closed after the file's last test. A file that needs other options
 * says so once, at its top: `it.override('appOptions', { env: { ... } })` (a value, or a file-scoped
 * function for options that need setting up, such as a Redis connection).
 *
 * `db` is the file's database, the one `t` runs on: a file that seeds it before the app starts asks for it in
 * `it.beforeAll(async ({ db }) => …)`, since `t` is made when a test first asks for it. `apps` opens further
 * apps, by default on the same database (several instances, or other settings beside `t`'s), each closed after
 * the file's last test (or earlier, by `close()`): `const other = await apps({ env: { ... } })`. `clock` is `t`'s clock for one test:
 * the test moves it freely and it is back where it was for the next test.
 */
export const it = base
  .extend('appOptions', { scope: 'file' }, {} as TestAppOptions)
  .extend('db', { scope: 'file' }, async ({ appOptions }, { onCleanup }): Promise<Database & { url?: string }> => {
    // A database the options bring belongs to whoever opened it.
    if (appOptions.db) return appOptions.db;
    const opened = await openTestDatabase({ onQuery: appOptions.onQuery, timeouts: appOptions.databaseTimeouts });
    // Closing twice is a no-op, so a test may close the database under its app (test/errors.test.ts).
    let closing: Promise<void> | undefined;
    const db: Database & { url?: string } = { ...opened, close: () => (closing ??= opened.close()) };
    onCleanup(() => db.close());
    return db;
  })
  .extend('t', { scope: 'file' }, async ({ appOptions, db }, { onCleanup }) => {
    const t = await createTestApp({ ...appOptions, db });
    onCleanup(() => t.close());
    return t;
  })
  .extend('apps', { scope: 'file' }, async ({ db }, { onCleanup }): Promise<OpenApp> => {
    const opened: TestApp[] = [];
    // Apps close before the database they share (this fixture depends on `db`).
    onCleanup(async () => {
      for (const app of opened.reverse()) await app.close();
    });
    return async ({ freshDatabase, ...options } = {}) => {
      const app = await createTestApp(freshDatabase ? options : { db, ...options });
      // Closing twice is a no-op, so a suite may close its apps early (before the Redis they use, say).
      let closing: Promise<void> | undefined;
      const close = app.close;
      app.close = () => (closing ??= close());
      opened.push(app);
      return app;
    };
  })
  .extend('clock', async ({ t }, { onCleanup }) => {
    const start = t.clock.now();
    onCleanup(() => t.clock.set(start));
    return t.clock;
  });
