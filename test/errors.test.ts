import { Writable } from 'node:stream';
import { describe, expect } from 'vitest';
import { createLogger } from '../src/logger.ts';
import { it } from './support/app.ts';

const lines: string[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    lines.push(String(chunk));
    done();
  },
});

/**
 * Internal failures reach clients as a bare 500 / INTERNAL: no stack, no driver message. The
 * database is closed under the app to make every resolver fail for a reason clients must not see.
 */
it.override('appOptions', { logger: createLogger('info', sink) });

describe('masked internal errors', () => {
  // The app starts on a working database, which then closes under it.
  it.beforeAll(async ({ t }) => {
    await t.db.close();
  });

  it('REST answers 500 in the envelope without internals', async ({ t }) => {
    const reply = await t.rest('GET', '/orders');
    expect(reply.status).toBe(500);
    expect(reply.body).toEqual({ status: 'Error', result: 'internal server error' });
  });

  // A path through a GraphQL resolver, and the user page PostgreSQL renders (src/rest/rendered-pages.ts): the
  // resolver's masking logs the one, the REST layer the other.
  it.for([
    ['/orders/0000000000000000000000000000000000000000000000000000000000000000', 'internal error in a resolver'],
    ['/orders/user/someone', 'unhandled error'],
  ] as const)('logs the real error of %s, tagged with the request id, and keeps it from the client', async ([path, message], { t }) => {
    lines.length = 0;
    const reply = await t.rest('GET', path, undefined, { 'x-request-id': 'trace-me-1' });
    expect(reply.status).toBe(500);
    expect(reply.body).toEqual({ status: 'Error', result: 'internal server error' });
    expect(reply.headers.get('x-request-id')).toBe('trace-me-1');
    const logged = lines.map((l) => JSON.parse(l) as { reqId?: string; msg: string; level: number; err?: { message?: string } });
    expect(logged.length).toBeGreaterThanOrEqual(2);
    expect(logged.every((l) => l.reqId === 'trace-me-1')).toBe(true);
    const error = logged.find((l) => l.msg === message);
    expect(error?.level).toBe(50);
    expect(error?.err?.message).toBeTruthy();
  });

  it('GraphQL masks the message and says INTERNAL', async ({ t }) => {
    const reply = await t.gql('{ orders { total } }');
    expect(reply.errors).toHaveLength(1);
    const [error] = reply.errors!;
    expect(error!.extensions).toEqual({ code: 'INTERNAL' });
    expect(JSON.stringify(reply)).not.toMatch(/pglite|pool|prisma|at .*\.ts|stack/i);
  });

  it('/ready reports the database down with 503 and Retry-After', async ({ t }) => {
    const reply = await t.rest('GET', '/ready');
    expect(reply.status).toBe(503);
    expect(reply.headers.get('retry-after')).toBe('5');
    expect(reply.body).toEqual({ status: 'Error', result: 'not ready: database unreachable' });
  });
});
