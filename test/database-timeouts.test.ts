import { Writable } from 'node:stream';
import pg from 'pg';
import { describe, expect } from 'vitest';
import { createLogger } from '../src/logger.ts';
import { it } from './support/app.ts';
import { TEST_DB } from './support/database.ts';
import { makeQuote, orderBody } from './support/fixtures.ts';

/**
 * A statement PostgreSQL cancels for running too long (here: blocked behind a lock another session
 * holds) is a 503 with Retry-After, on REST and GraphQL alike: the database is busy, the request is
 * fine. PostgreSQL only (PGlite has one session). A frozen server is test/faults/postgres-frozen.test.ts.
 */
const lines: { msg: string; reqId?: string }[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    lines.push(JSON.parse(String(chunk)));
    done();
  },
});
it.override('appOptions', {
  databaseTimeouts: { connectTimeoutMs: 2_000, statementTimeoutMs: 300, queryTimeoutMs: 3_000 },
  logger: createLogger('info', sink),
});

describe.skipIf(TEST_DB !== 'postgres')('a statement timeout', () => {
  let locker: pg.Client;
  it.beforeAll(async ({ db }) => {
    locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
  });
  it.afterAll(async () => {
    await locker?.end();
  });

  it('answers 503 with Retry-After, not 500', async ({ t }) => {
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE orders, quotes IN ACCESS EXCLUSIVE MODE');
    try {
      const started = performance.now();
      const list = await t.rest('GET', '/orders?limit=5');
      expect(list.status).toBe(503);
      expect(list.headers.get('retry-after')).toBeTruthy();
      expect(list.body).toEqual({ status: 'Error', result: 'service unavailable: the database is unreachable, retry shortly' });
      expect(performance.now() - started).toBeLessThan(2_000);

      // A quote is signed, not stored: made without touching the locked tables. Its order waits on them.
      const quote = await makeQuote(t);
      const order = await t.rest('POST', '/orders', orderBody(quote));
      expect(order.status).toBe(503);
      expect(order.headers.get('retry-after')).toBeTruthy();

      const gql = await t.gql('{ orders(limit: 5) { data { orderId } } }');
      expect(gql.errors?.[0]?.extensions?.code).toBe('UNAVAILABLE');

      // The user page PostgreSQL renders runs no GraphQL: the same answer, and the same one warning in the log.
      for (const [path, reqId] of [
        ['/orders?limit=5', 'busy-list'],
        ['/orders/user/alice', 'busy-user-page'],
      ]) {
        const page = await t.rest('GET', path!, undefined, { 'x-request-id': reqId! });
        expect(page.status, path).toBe(503);
        expect(page.headers.get('retry-after'), path).toBe('5');
        expect(page.body, path).toEqual({ status: 'Error', result: 'service unavailable: the database is unreachable, retry shortly' });
        expect(
          lines.filter((l) => l.reqId === reqId && l.msg === 'database unavailable'),
          path,
        ).toHaveLength(1);
      }
    } finally {
      await locker.query('ROLLBACK');
    }
    expect((await t.rest('GET', '/orders?limit=5')).status).toBe(200);
  });
});
