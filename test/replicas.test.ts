import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlQueryable, SqlResultSet } from '@prisma/driver-adapter-utils';
import { describe, expect } from 'vitest';
import type { Database } from '../src/db/database.ts';
import { isDatabaseUnavailable } from '../src/db/unavailable.ts';
import { fallbackAdapter, fallbackReader } from '../src/db/replicas/fallback.ts';
import { lsnValue, ReplicaSet, type ReplicaNode } from '../src/db/replicas/health.ts';
import { createReadRouting } from '../src/db/replicas/routing.ts';
import { memoryWriterWindow } from '../src/db/replicas/writer-window.ts';
import { it, type TestApp } from './support/app.ts';
import { openTestDatabase } from './support/database.ts';
import { makeQuote, orderBody } from './support/fixtures.ts';
import { freePort } from './support/server-process.ts';

/**
 * Read routing (src/db/replicas/, README "Deployment"). The cluster tests run it on a real streaming
 * replica; here the rules, with a "replica" that is a second, empty database: whatever a read finds
 * there shows where it went.
 */

/** A replica node whose replay position the test sets; `target` is where its reads go. */
function fakeNode(name: string, target: ReplicaNode['target'], state: { replay: string | Error; inRecovery?: boolean }): ReplicaNode {
  return {
    name,
    target,
    async replayState() {
      if (state.replay instanceof Error) throw state.replay;
      return { inRecovery: state.inRecovery ?? true, replayLsn: state.replay };
    },
    close: async () => undefined,
  };
}

describe('which replica is usable', () => {
  const target = {} as ReplicaNode['target'];
  let now = 1_000_000;
  const clock = () => now;

  it('compares WAL positions: caught up is used, behind past the bound is skipped, then used again', async () => {
    let primary = '0/1000';
    const state = { replay: '0/1000' as string | Error };
    const set = new ReplicaSet({
      nodes: [fakeNode('r1', target, state)],
      primaryLsn: async () => primary,
      maxLagMs: 1_000,
      checkMs: 200,
      now: clock,
    });
    expect(set.pick()).toBeUndefined(); // never checked
    await set.check();
    expect(set.pick()?.name).toBe('r1');

    // The primary moves on; the replica stays at 0/1000 for 1.5 s of checks.
    primary = '0/2000';
    await set.check(); // sample 0/2000 at t; the replica has the sample before it (taken at the same time here)
    for (let i = 0; i < 8; i++) {
      now += 200;
      primary = `0/${(0x2000 + (i + 1) * 0x100).toString(16)}`;
      await set.check();
    }
    expect(set.status()[0]!.lagMs).toBeGreaterThan(1_000);
    expect(set.pick()).toBeUndefined();

    state.replay = primary;
    now += 200;
    await set.check();
    expect(set.status()[0]!.lagMs).toBe(0);
    expect(set.pick()?.name).toBe('r1');
  });

  it('skips a replica that does not answer, one that is no replica, and one not checked lately', async () => {
    const down = { replay: new Error('connect ECONNREFUSED') as string | Error };
    const promoted = { replay: '0/10', inRecovery: false };
    const fine = { replay: '0/10' };
    const set = new ReplicaSet({
      nodes: [fakeNode('down', target, down), fakeNode('promoted', target, promoted), fakeNode('fine', target, fine)],
      primaryLsn: async () => '0/10',
      maxLagMs: 500,
      checkMs: 100,
      now: clock,
    });
    await set.check();
    expect([set.pick()?.name, set.pick()?.name]).toEqual(['fine', 'fine']);
    // No check for longer than the bound allows (the primary cannot be asked): not used any more.
    now += 700;
    expect(set.pick()).toBeUndefined();
  });

  it('keeps a replica in use while the primary cannot be asked, with its last measured lag', async () => {
    let primaryUp = true;
    const state = { replay: '0/10' as string | Error };
    const set = new ReplicaSet({
      nodes: [fakeNode('r', target, state)],
      primaryLsn: async () => {
        if (!primaryUp) throw new Error('connect ECONNREFUSED');
        return '0/10';
      },
      maxLagMs: 500,
      checkMs: 100,
      now: clock,
    });
    await set.check();
    primaryUp = false;
    now += 2_000;
    await set.check();
    expect(set.pick()?.name).toBe('r');
    // A primary that hangs instead of refusing is given up on after a second, with the same outcome.
    const hanging = new ReplicaSet({
      nodes: [fakeNode('h', target, { replay: '0/10' })],
      primaryLsn: () => (primaryUp ? Promise.resolve('0/10') : new Promise<string>(() => undefined)),
      maxLagMs: 500,
      checkMs: 100,
      now: clock,
    });
    primaryUp = true;
    await hanging.check();
    primaryUp = false;
    now += 2_000;
    await hanging.check();
    expect(hanging.pick()?.name).toBe('h');
    // ... unless it stops answering too.
    state.replay = new Error('connect ECONNREFUSED');
    await set.check();
    expect(set.pick()).toBeUndefined();
  });

  it('takes turns between usable replicas, and skips one a query found down until a check finds it', async () => {
    const set = new ReplicaSet({
      nodes: [fakeNode('a', target, { replay: '0/10' }), fakeNode('b', target, { replay: '0/10' })],
      primaryLsn: async () => '0/10',
      maxLagMs: 500,
      checkMs: 100,
      now: clock,
    });
    await set.check();
    expect([set.pick()?.name, set.pick()?.name, set.pick()?.name]).toEqual(['a', 'b', 'a']);
    set.markDown('b');
    expect([set.pick()?.name, set.pick()?.name]).toEqual(['a', 'a']);
    await set.check();
    expect(new Set([set.pick()?.name, set.pick()?.name])).toEqual(new Set(['a', 'b']));
  });

  it('reads WAL positions as numbers', () => {
    expect(lsnValue('1/0') > lsnValue('0/FFFFFFFF')).toBe(true);
    expect(lsnValue('0/A')).toBe(10n);
  });
});

describe('a replica that cannot answer', () => {
  it('sends the query to the primary and marks the replica down', async () => {
    // A real pg pool on a port nothing listens on: the error is the driver's own.
    const port = await freePort();
    const replica = await new PrismaPg({
      connectionString: `postgresql://postgres@127.0.0.1:${port}/none`,
      connectionTimeoutMillis: 1_000,
    }).connect();
    const answer: SqlResultSet = { columnNames: ['x'], columnTypes: [0], rows: [[1]] };
    const asked: string[] = [];
    const primary = {
      provider: 'postgres',
      adapterName: 'test',
      queryRaw: async (q: { sql: string }) => {
        asked.push(q.sql);
        return answer;
      },
    } as unknown as SqlQueryable;
    let downs = 0;
    const adapter = fallbackAdapter(replica, primary, () => downs++);
    expect(await adapter.queryRaw({ sql: 'SELECT 1 AS x', args: [], argTypes: [] })).toBe(answer);
    expect(asked).toEqual(['SELECT 1 AS x']);
    expect(downs).toBe(1);
    await replica.dispose();
  });

  it("sends the row store's reads to the primary when the replica cannot answer, and only then", async () => {
    const asked: string[] = [];
    const primary = async (sql: string) => {
      asked.push(sql);
      return [[1]];
    };
    const failing = (error: Error) => async () => {
      throw error;
    };
    let downs = 0;
    const cut = Object.assign(new Error('Connection terminated unexpectedly'), {});
    expect(await fallbackReader(failing(cut), primary, () => downs++)('SELECT 1', [], [])).toEqual([[1]]);
    expect({ asked, downs }).toEqual({ asked: ['SELECT 1'], downs: 1 });
    for (const error of [
      Object.assign(new Error('syntax error at or near "SELEC"'), { code: '42601' }),
      Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }),
    ]) {
      await expect(fallbackReader(failing(error), primary, () => downs++)('SELEC 1', [], [])).rejects.toBe(error);
    }
    expect({ asked, downs }).toEqual({ asked: ['SELECT 1'], downs: 1 });
  });

  it('passes a query error of the replica on (a bug is not hidden by the primary)', async () => {
    const failing = {
      provider: 'postgres',
      adapterName: 'test',
      queryRaw: async () => {
        throw Object.assign(new Error('syntax error at or near "SELEC"'), { code: '42601' });
      },
    } as unknown as Parameters<typeof fallbackAdapter>[0];
    const primary = { queryRaw: async () => ({ columnNames: [], columnTypes: [], rows: [] }) } as unknown as SqlQueryable;
    let downs = 0;
    await expect(fallbackAdapter(failing, primary, () => downs++).queryRaw({ sql: 'SELEC 1', args: [], argTypes: [] })).rejects.toThrow(
      /syntax/,
    );
    expect(downs).toBe(0);
  });

  it('passes a statement timeout on too: slow is not down, and the primary would double the wait', async () => {
    for (const slow of [
      Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }),
      new Error('Query read timeout'),
    ]) {
      const replica = {
        provider: 'postgres',
        adapterName: 'test',
        queryRaw: async () => {
          throw slow;
        },
      } as unknown as Parameters<typeof fallbackAdapter>[0];
      let askedPrimary = 0;
      const primary = {
        queryRaw: async () => {
          askedPrimary++;
          return { columnNames: [], columnTypes: [], rows: [] };
        },
      } as unknown as SqlQueryable;
      let downs = 0;
      await expect(fallbackAdapter(replica, primary, () => downs++).queryRaw({ sql: 'SELECT 1', args: [], argTypes: [] })).rejects.toBe(
        slow,
      );
      expect({ downs, askedPrimary }).toEqual({ downs: 0, askedPrimary: 0 });
    }
  });
});

describe('requests routed to a replica', () => {
  let replicaDb: Database;
  let t: TestApp;
  let replicas: ReplicaSet;
  const writer = { 'x-forwarded-for': '10.0.0.1' };
  const reader = { 'x-forwarded-for': '10.0.0.2' };
  let orderId: string;

  // The file's database is the primary; the "replica" is a second database that never receives the primary's
  // writes: a replica far behind.
  it.beforeAll(async ({ db: primaryDb, apps }) => {
    replicaDb = await openTestDatabase();
    replicas = new ReplicaSet({
      nodes: [
        fakeNode(
          'lagging',
          { prisma: replicaDb.prisma, rows: replicaDb.rows, orders: replicaDb.orders, stats: replicaDb.stats, replica: 'lagging' },
          { replay: '0/10' },
        ),
      ],
      primaryLsn: async () => '0/10',
      // Checked by hand here: a check stays good for the whole file.
      maxLagMs: 60_000,
      checkMs: 50,
    });
    await replicas.check();
    t = await apps({
      db: { ...primaryDb, replicas },
      env: { TRUST_PROXY: 'true', REPLICA_MAX_LAG_MS: '0', REPLICA_CHECK_MS: '50', READ_YOUR_WRITES_MS: '400', STATS_CACHE_SECONDS: '1' },
    });
    const quote = await makeQuote(t);
    const created = await t.rest('POST', '/orders', orderBody(quote, {}, 'alice'), writer);
    expect(created.status).toBe(201);
    orderId = created.body.result.order_id;
  });
  it.afterAll(async () => {
    await t?.close();
    await replicaDb?.close();
  });

  it('reads an order by id on the primary when the replica does not have it: never a 404', async () => {
    const reply = await t.rest('GET', `/orders/${orderId}`, undefined, reader);
    expect(reply.status).toBe(200);
    expect(reply.body.result.source_intent.amount).toBe('10000000');
  });

  it("serves another client's lists and statistics from the replica", async () => {
    expect((await t.rest('GET', '/orders/user/alice', undefined, reader)).body.result.total).toBe(0);
    expect((await t.rest('GET', '/orders', undefined, reader)).body.result.total).toBe(0);
    t.statsCache.clear();
    expect((await t.rest('GET', '/stats', undefined, reader)).body.result.all_time.total_orders).toBe(0);
    const page = await t.gql('{ ordersConnection(first: 5) { edges { node { orderId } } } }');
    expect(page.data.ordersConnection.edges).toEqual([]);
  });

  it('serves the client that wrote from the primary, for READ_YOUR_WRITES_MS', async () => {
    const second = await t.rest('POST', '/orders', orderBody(await makeQuote(t), {}, 'alice'), writer);
    const mine = await t.rest('GET', '/orders/user/alice', undefined, writer);
    // The test clock stands still: both have one created_at, so compare them as a set.
    expect(mine.body.result.data.map((o: { order_id: string }) => o.order_id).sort()).toEqual(
      [second.body.result.order_id, orderId].sort(),
    );
    await new Promise((r) => setTimeout(r, 500));
    await replicas.check();
    expect((await t.rest('GET', '/orders/user/alice', undefined, writer)).body.result.total).toBe(0);
  });

  it("keeps a subscription's reads on the primary: it pushes changes as they commit", async () => {
    const target = (name: string) => ({ ...t.db, replica: name }) as unknown as ReplicaNode['target'];
    const primary = target('primary');
    const routing = createReadRouting(primary, replicas, undefined);
    expect((await routing.forRequest('ip:10.0.0.3').lagTolerant()).replica).toBe('lagging');
    const subscription = routing.forRequest('ip:10.0.0.3');
    subscription.pinPrimary();
    expect(await subscription.lagTolerant()).toBe(primary);
  });

  it('reads everything on the primary when no replica is usable', async () => {
    replicas.markDown('lagging');
    expect((await t.rest('GET', '/orders/user/alice', undefined, reader)).body.result.total).toBe(2);
    await replicas.check();
    expect((await t.rest('GET', '/orders/user/alice', undefined, reader)).body.result.total).toBe(0);
  });
});

describe('a connection cut under a query', () => {
  it('is the database being unavailable (503), not a bug (500)', async () => {
    // What @prisma/adapter-pg throws when PgBouncer or HAProxy closes the connection (seen in test/cluster/).
    const cut = Object.assign(new Error('ConnectionClosed'), { name: 'DriverAdapterError', cause: { kind: 'ConnectionClosed' } });
    expect(isDatabaseUnavailable(cut)).toBe(true);
    expect(isDatabaseUnavailable({ cause: { kind: 'ConnectionClosed' } })).toBe(true);
    expect(isDatabaseUnavailable(new Error('syntax error'))).toBe(false);
  });
});

describe('the writer window', () => {
  it('expires', async () => {
    let now = 0;
    const window = memoryWriterWindow(1_000, () => now);
    window.mark('ip:1');
    expect(await window.wroteRecently('ip:1')).toBe(true);
    expect(await window.wroteRecently('ip:2')).toBe(false);
    now = 1_001;
    expect(await window.wroteRecently('ip:1')).toBe(false);
  });
});
