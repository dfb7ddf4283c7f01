import { randomBytes } from 'node:crypto';
import { createClient } from 'graphql-ws';
import type { Redis } from 'ioredis';
import { describe, expect } from 'vitest';
import { WebSocket } from 'ws';
import { WATCHER_KEY, it, type Json, type TestApp } from './support/app.ts';
import { TestRedis } from './support/redis.ts';
import { escrowEvent, postEvent } from './support/events.ts';
import { makeOrder } from './support/fixtures.ts';
import { Inbox, WAIT_MS, bounded, subscribeSse, type Result, type Subscription } from './support/sse.ts';
import { eventually, listen } from './support/ws.ts';

/**
 * Subscriptions: each change is published to `orderUpdated(orderId)` and
 * `userOrdersUpdated(userId)`, over SSE and over WebSocket, and across instances through Redis.
 *
 * Pub/sub channels are not prefixed by ioredis' keyPrefix, so parallel runs on one Redis are kept
 * apart by their topics instead: order ids are unique, and so are the user ids used here.
 */

const ORDER_UPDATED = `subscription ($id: String!) {
  orderUpdated(orderId: $id) { orderId userId status sourceIntent { createTxHash } }
}`;
const USER_ORDERS_UPDATED = `subscription ($userId: String!) {
  userOrdersUpdated(userId: $userId) { orderId userId status }
}`;

const uniqueUser = () => `sub-${randomBytes(6).toString('hex')}`;

/** Every statement the app sends, as text. */
const statements: string[] = [];
it.override('appOptions', { onQuery: (sql: string) => statements.push(sql) });

/** Re-announces an order unchanged on an instance's own pubsub (a probe for Inbox.untilLive). */
function probeOrder(t: TestApp, orderId: string) {
  return () => t.runtime.pubsub.publish('orderUpdated', orderId, { orderId });
}

function probeUser(t: TestApp, userId: string, orderId: string) {
  return () => t.runtime.pubsub.publish('userOrdersUpdated', userId, { orderId });
}

async function createEvent(t: TestApp, swapId: string, blockNumber = 100) {
  const event = escrowEvent('create', blockNumber);
  expect(event.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
  expect(event.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  const reply = await postEvent(t, swapId, event);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return { event, reply };
}

/** Records the source escrow's creation on `on`, and expects the subscriber to receive the order as it now is. */
async function expectSourceCreated(sub: Subscription, on: TestApp, order: Json, userId: string, what: string) {
  const { event, reply } = await createEvent(on, order.source_intent.swap_id);
  expect(reply.body.result.status).toBe('source_created');

  const update = await sub.inbox.take(what, (o) => o.status === 'SOURCE_CREATED');
  expect(update).toEqual({
    orderId: order.order_id,
    userId,
    status: 'SOURCE_CREATED',
    sourceIntent: { createTxHash: event.tx_hash },
  });
}

describe('subscriptions over SSE', () => {
  it('orderUpdated delivers the order when an escrow event is recorded', async ({ t }) => {
    const userId = uniqueUser();
    const order = await makeOrder(t, {}, userId);
    const sub = await subscribeSse(t.app, ORDER_UPDATED, { id: order.order_id });
    try {
      await sub.inbox.untilLive(probeOrder(t, order.order_id));
      await expectSourceCreated(sub, t, order, userId, 'SOURCE_CREATED over SSE');
    } finally {
      await sub.close();
    }
  });

  it("userOrdersUpdated delivers a newly created order of that user, and not another user's", async ({ t }) => {
    const userId = uniqueUser();
    const first = await makeOrder(t, {}, userId);
    const sub = await subscribeSse(t.app, USER_ORDERS_UPDATED, { userId });
    try {
      await sub.inbox.untilLive(probeUser(t, userId, first.order_id));
      const someoneElse = await makeOrder(t, {}, uniqueUser());
      const created = await makeOrder(t, {}, userId);

      const update = await sub.inbox.take('the new order over SSE', (o) => o.orderId === created.order_id);
      expect(update).toEqual({ orderId: created.order_id, userId, status: 'PENDING' });
      await sub.inbox.none("another user's order", (o) => o.orderId === someoneElse.order_id || o.userId !== userId, 100);
    } finally {
      await sub.close();
    }
  });

  it('keeps an idle stream open with comments, and sends none on a stream that carries events', async ({ t }) => {
    // Under NODE_ENV=test a stream is silent at most 300 ms (src/http/sse-results.ts).
    const userId = uniqueUser();
    const order = await makeOrder(t, {}, userId);
    const sub = await subscribeSse(t.app, USER_ORDERS_UPDATED, { userId });
    try {
      await sub.inbox.untilLive(probeUser(t, userId, order.order_id));
      // Busy: an event every 40 ms for 1.5 s. A comment every 300 ms would be 5 of them.
      const busyFrom = Date.now();
      const delivered = sub.inbox.size;
      let probes = 0;
      while (Date.now() - busyFrom < 1_500) {
        probeUser(t, userId, order.order_id)();
        probes += 1;
        await new Promise((resolve) => setTimeout(resolve, 40));
      }
      const busyTo = Date.now();
      await eventually('the busy events delivered', () => sub.inbox.size >= delivered + probes);
      expect(sub.pings.filter((at) => at > busyFrom && at <= busyTo).length).toBeLessThanOrEqual(1);
      // Idle: a comment soon after the last event (within 300 ms, and the timers' lateness), then one per 300 ms:
      // 1.5 s of silence holds about 5 (timers run late, never early), not the 10 of a comment at every check.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const idle = sub.pings.filter((at) => at > busyTo);
      expect(idle[0]! - busyTo).toBeLessThan(600);
      expect(idle.length).toBeGreaterThanOrEqual(2);
      expect(idle.length).toBeLessThanOrEqual(6);
    } finally {
      await sub.close();
    }
  });

  it('ends the stream with an error for an order id that cannot exist', async ({ t }) => {
    const response = await t.app.fetch('http://test/graphql', {
      method: 'POST',
      headers: { accept: 'text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ query: ORDER_UPDATED, variables: { id: 'not-an-order-id' } }),
    });
    const text = await bounded(response.text(), WAIT_MS, 'SSE error stream');
    expect(text).toContain('event: next');
    expect(text).toContain('"errors"');
    expect(text).toContain('event: complete');
  });
});

describe('reading the order of each live update', () => {
  it('reads it with the one prepared statement, its intents in it on PostgreSQL, however many updates arrive together', async ({ t }) => {
    const userId = uniqueUser();
    const orders = [];
    for (let i = 0; i < 4; i++) orders.push(await makeOrder(t, {}, userId));
    const subs = await Promise.all(orders.map((order) => subscribeSse(t.app, ORDER_UPDATED, { id: order.order_id })));
    try {
      for (const [i, sub] of subs.entries()) await sub.inbox.untilLive(probeOrder(t, orders[i]!.order_id));
      statements.length = 0;
      // Together: Prisma Client would gather these reads into IN lists, a new text for each length.
      await Promise.all(orders.map((order) => createEvent(t, order.source_intent.swap_id)));
      for (const [i, sub] of subs.entries()) await sub.inbox.take(`update ${i}`, (o) => o.status === 'SOURCE_CREATED');
      const orderReads = statements.filter((sql) => /^\s*SELECT\b[\s\S]*\bFROM\s+("public"\.)?"?orders"?\s/i.test(sql));
      // One for each event's answer and one for each subscriber's update, all of one text.
      expect(orderReads.filter((sql) => / FROM orders WHERE id = ANY\(\$1\) /.test(sql)).length).toBeGreaterThanOrEqual(2 * orders.length);
      expect(orderReads.filter((sql) => /"id" IN \(/.test(sql))).toEqual([]);
      // On PostgreSQL each read brings both intents along and none is read on its own; PGlite, which plans every
      // read anew, reads them in a second statement (src/db/orders-store.ts, ByIdOptions).
      const joined = orderReads.some((sql) => /CROSS JOIN LATERAL \(SELECT \* FROM intents/.test(sql));
      const intentReads = statements.filter((sql) => /FROM intents WHERE swap_id = ANY/.test(sql));
      if (t.db.rows.preparedReads) {
        expect(joined).toBe(true);
        expect(intentReads).toEqual([]);
      } else {
        expect(joined).toBe(false);
        expect(intentReads.length).toBeGreaterThanOrEqual(orders.length);
      }
      expect(t.db.rows.preparedReads).toBe(process.env.TEST_DB === 'postgres');
    } finally {
      await Promise.all(subs.map((sub) => sub.close()));
    }
  });
});

describe('subscriptions over WebSocket (graphql-ws)', () => {
  it('orderUpdated delivers the order when an escrow event is recorded', async ({ t }) => {
    const server = await listen(t);
    const client = createClient({ url: server.wsUrl, webSocketImpl: WebSocket, retryAttempts: 0 });
    const inbox = new Inbox();
    let unsubscribe = () => {};
    try {
      const userId = uniqueUser();
      const order = await makeOrder(t, {}, userId);
      unsubscribe = client.subscribe(
        { query: ORDER_UPDATED, variables: { id: order.order_id } },
        {
          next: (result) => inbox.push(result as Result),
          error: (error) => inbox.end(error instanceof Error ? error : JSON.stringify(error)),
          complete: () => inbox.end(),
        },
      );
      await inbox.untilLive(probeOrder(t, order.order_id));
      const { event } = await createEvent(t, order.source_intent.swap_id);

      const update = await inbox.take('SOURCE_CREATED over WebSocket', (o) => o.status === 'SOURCE_CREATED');
      expect(update).toEqual({
        orderId: order.order_id,
        userId,
        status: 'SOURCE_CREATED',
        sourceIntent: { createTxHash: event.tx_hash },
      });
    } finally {
      unsubscribe();
      await bounded(Promise.resolve(client.dispose()), WAIT_MS, 'graphql-ws client dispose');
      await bounded(server.close(), WAIT_MS, 'server close');
    }
  });

  it('answers a bad operation with its own error and keeps the socket; takes keys from connectionParams', async ({ t }) => {
    const server = await listen(t);
    let closed = false;
    const client = createClient({
      url: server.wsUrl,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      connectionParams: { authorization: `Bearer ${WATCHER_KEY}` },
      // One socket for the whole test: closing it would be the server's doing.
      lazy: false,
      on: { closed: () => (closed = true) },
    });
    const once = (query: string, variables?: Record<string, unknown>) =>
      new Promise<{ data?: unknown; errors?: unknown[] }>((resolve, reject) => {
        let result: { data?: unknown; errors?: unknown[] } = {};
        client.subscribe(
          { query, variables },
          {
            next: (r) => (result = r as typeof result),
            error: (e) => (Array.isArray(e) ? resolve({ errors: e }) : reject(e)),
            complete: () => resolve(result),
          },
        );
      });
    try {
      const bad = await bounded(once('subscription { nope('), WAIT_MS, 'syntax error');
      expect(JSON.stringify(bad.errors)).toContain('Syntax Error');
      const order = await makeOrder(t, {}, uniqueUser());
      const recorded = await bounded(
        once('mutation ($input: RecordEscrowEventInput!) { recordEscrowEvent(input: $input) { status } }', {
          input: {
            swapId: order.source_intent.swap_id,
            kind: 'CREATE',
            txHash: `0x${'cd'.repeat(32)}`,
            blockNumber: 1,
            timestamp: '2026-01-01T00:00:00Z',
          },
        }),
        WAIT_MS,
        'mutation over WebSocket',
      );
      expect(recorded, JSON.stringify(recorded)).toEqual({ data: { recordEscrowEvent: { status: 'SOURCE_CREATED' } } });
      expect(closed).toBe(false);
    } finally {
      await bounded(Promise.resolve(client.dispose()), WAIT_MS, 'graphql-ws client dispose');
      await bounded(server.close(), WAIT_MS, 'server close');
    }
  });
});

describe('two instances on one database', () => {
  describe('and one Redis', () => {
    let a: TestApp;
    let b: TestApp;
    // Keys (stats cache, rate limits) get a per-run prefix; channels are kept apart by their topics.
    const redis = new TestRedis();
    let observer: Redis;

    it.beforeAll(async ({ apps }) => {
      a = await apps({ redis: redis.pair() });
      b = await apps({ redis: redis.pair() });
      observer = redis.observer();
    });
    // The apps close before the Redis they use.
    it.afterAll(async () => {
      await a?.close();
      await b?.close();
      redis.disconnect();
    });

    const subscribers = async (channel: string) => {
      const [, count] = (await observer.pubsub('NUMSUB', channel)) as [string, number];
      return Number(count);
    };

    it("an escrow event recorded on B reaches A's SSE subscriber", async () => {
      const userId = uniqueUser();
      const order = await makeOrder(a, {}, userId);
      const channel = `orderUpdated:${order.order_id}`;
      const sub = await subscribeSse(a.app, ORDER_UPDATED, { id: order.order_id });
      try {
        // A's own probe is delivered in-process; its SUBSCRIBE on Redis shows in NUMSUB.
        await sub.inbox.untilLive(probeOrder(a, order.order_id));
        // Topics are unique per order: this run's subscriber is the only one on the channel.
        await eventually('A subscribed on Redis', async () => (await subscribers(channel)) === 1);

        await expectSourceCreated(sub, b, order, userId, "SOURCE_CREATED on A from B's event");
      } finally {
        await sub.close();
      }
      // Closing the stream leaves the Redis channel: nothing leaks per subscriber.
      await eventually('A unsubscribed from Redis', async () => (await subscribers(channel)) === 0);
    });
  });

  describe('without Redis (each instance with an in-process pubsub)', () => {
    let a: TestApp;
    let b: TestApp;
    it.beforeAll(async ({ apps }) => {
      a = await apps();
      b = await apps();
    });

    it("an escrow event recorded on B does not reach A's subscriber, while A's own events do", async () => {
      const userId = uniqueUser();
      const order = await makeOrder(a, {}, userId);
      const sub = await subscribeSse(a.app, ORDER_UPDATED, { id: order.order_id });
      try {
        await sub.inbox.untilLive(probeOrder(a, order.order_id));
        const { event } = await createEvent(b, order.source_intent.swap_id);
        await sub.inbox.none("B's SOURCE_CREATED on A", (o) => o.status === 'SOURCE_CREATED', 500);

        // A's subscriber is alive, and A reads what B wrote to the shared database.
        await createEvent(a, order.destination_intent.swap_id, 200);
        const update = await sub.inbox.take("A's own DESTINATION_CREATED", (o) => o.status === 'DESTINATION_CREATED');
        expect(update.sourceIntent).toEqual({ createTxHash: event.tx_hash });
      } finally {
        await sub.close();
      }
    });
  });
});
