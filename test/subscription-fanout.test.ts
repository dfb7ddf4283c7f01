import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { createClient } from 'graphql-ws';
import { describe, expect } from 'vitest';
import { WebSocket } from 'ws';
import { it, type TestApp } from './support/app.ts';
import { makeOrder } from './support/fixtures.ts';
import { Inbox, WAIT_MS, bounded, orderOf, subscribeSse, type Result } from './support/sse.ts';
import { listen } from './support/ws.ts';
import { SUBSCRIBER_QUEUE_LIMIT } from '../src/http/shared-subscriptions.ts';

/**
 * Many subscribers of one topic cost one execution per event (src/http/shared-subscriptions.ts): the
 * order is read once, not once per subscriber; and a subscriber that stops reading is dropped with
 * SLOW_CONSUMER instead of queueing every later event.
 */

const USER_ORDERS = `subscription ($userId: String!) {
  userOrdersUpdated(userId: $userId) { orderId userId status sourceIntent { swapId createTxHash } destinationIntent { swapId } }
}`;

const statements: string[] = [];
const publish = (t: TestApp, userId: string, orderId: string) => () => t.runtime.pubsub.publish('userOrdersUpdated', userId, { orderId });

/**
 * `count` SSE subscribers (through the app in-process, or over HTTP to the listening server) and `count` over
 * WebSocket, all following one user's orders; `close` ends them and the server.
 */
async function subscribedOverBoth(t: TestApp, userId: string, count: number, sse: 'in-process' | 'over HTTP') {
  const server = await listen(t);
  const client = createClient({ url: server.wsUrl, webSocketImpl: WebSocket, retryAttempts: 0, lazy: false });
  const sseSubscribers = await Promise.all(
    Array.from({ length: count }, () => subscribeSse(sse === 'in-process' ? t.app : server.base, USER_ORDERS, { userId })),
  );
  const ws = Array.from({ length: count }, () => {
    const inbox = new Inbox();
    const stop = client.subscribe(
      { query: USER_ORDERS, variables: { userId } },
      { next: (r) => inbox.push(r as Result), error: (e) => inbox.end(e), complete: () => inbox.end() },
    );
    return { inbox, stop };
  });
  return {
    inboxes: [...sseSubscribers.map((s) => s.inbox), ...ws.map((s) => s.inbox)],
    async close() {
      for (const s of ws) s.stop();
      await Promise.all(sseSubscribers.map((s) => s.close()));
      await bounded(Promise.resolve(client.dispose()), WAIT_MS, 'graphql-ws client dispose');
      await bounded(server.close(), WAIT_MS, 'server close');
    },
  };
}

describe('subscribers of one topic', () => {
  it('read and serialise the order once per event, over SSE and WebSocket alike', async ({ apps }) => {
    const t = await apps({ freshDatabase: true, onQuery: (sql) => statements.push(sql) });
    const userId = `fan-${randomBytes(6).toString('hex')}`;
    const order = await makeOrder(t, {}, userId);
    const { inboxes, close } = await subscribedOverBoth(t, userId, 20, 'in-process');
    try {
      for (const inbox of inboxes) await inbox.untilLive(publish(t, userId, order.order_id));
      // Whatever the probes still have under way settles before the count starts.
      await new Promise((r) => setTimeout(r, 200));
      const before = inboxes.map((i) => i.size);
      statements.length = 0;
      // Texts of the order serialised while the event is delivered (the clients only parse), and SSE events
      // encoded to bytes (the server's writer; the in-process SSE clients decode, never encode).
      let serialised = 0;
      let encoded = 0;
      const stringify = JSON.stringify;
      JSON.stringify = ((...args: Parameters<typeof stringify>) => {
        const text = stringify(...args);
        if (typeof text === 'string' && text.includes('"userOrdersUpdated"') && text.includes(order.order_id)) serialised += 1;
        return text;
      }) as typeof stringify;
      const bufferFrom = Buffer.from;
      const encode = TextEncoder.prototype.encode;
      const countSse = (value: unknown) => {
        if (typeof value === 'string' && value.includes(order.order_id) && /^(event: next\n)?data: /.test(value)) encoded += 1;
      };
      Buffer.from = ((value: unknown, ...rest: unknown[]) => {
        countSse(value);
        return (bufferFrom as (...args: unknown[]) => Buffer)(value, ...rest);
      }) as typeof Buffer.from;
      TextEncoder.prototype.encode = function (this: TextEncoder, input?: string) {
        countSse(input);
        return encode.call(this, input);
      };
      try {
        publish(t, userId, order.order_id)();
        for (const [i, inbox] of inboxes.entries()) {
          for (const deadline = Date.now() + WAIT_MS; inbox.size === before[i]; ) {
            if (Date.now() > deadline) throw new Error(`subscriber ${i} did not receive the event`);
            await new Promise((r) => setTimeout(r, 10));
          }
        }
      } finally {
        JSON.stringify = stringify;
        Buffer.from = bufferFrom;
        TextEncoder.prototype.encode = encode;
      }
      for (const inbox of inboxes) expect(JSON.stringify(inbox.last())).toContain(order.order_id);
      expect(serialised).toBe(1);
      // One SSE event's bytes for all 20 SSE subscribers (src/http/sse-results.ts).
      expect(encoded).toBe(1);
      // One order read (the intents come with it or in one more), not one per subscriber.
      expect(statements.length, statements.join('\n')).toBeGreaterThan(0);
      expect(statements.length, statements.join('\n')).toBeLessThanOrEqual(2);
    } finally {
      await close();
    }
  }, 120_000);

  it('get every event in order around one with errors, over SSE and WebSocket alike', async ({ t }) => {
    // Shared results without errors go straight to each socket; a result with errors goes through the
    // per-subscriber hooks, after what waited before it (src/http/shared-subscriptions.ts, DirectSink).
    const userId = `order-${randomBytes(6).toString('hex')}`;
    const order = await makeOrder(t, {}, userId);
    const { inboxes, close } = await subscribedOverBoth(t, userId, 3, 'over HTTP');
    try {
      for (const inbox of inboxes) await inbox.untilLive(publish(t, userId, order.order_id));
      await new Promise((r) => setTimeout(r, 200));
      const before = inboxes.map((i) => i.size);
      // An order that does not exist: its read fails, and the result carries the error.
      const missing = `ord_${randomBytes(8).toString('hex')}`;
      publish(t, userId, order.order_id)();
      publish(t, userId, missing)();
      publish(t, userId, order.order_id)();
      publish(t, userId, order.order_id)();
      for (const [i, inbox] of inboxes.entries()) {
        for (const deadline = Date.now() + WAIT_MS; inbox.size < before[i]! + 4; ) {
          if (Date.now() > deadline) throw new Error(`subscriber ${i} got ${inbox.size - before[i]!} of 4 events`);
          await new Promise((r) => setTimeout(r, 10));
        }
        const got = inbox
          .all()
          .slice(before[i])
          .map((r) => (r.errors?.length ? 'error' : (orderOf(r)?.orderId ?? 'empty')));
        expect(got, `subscriber ${i}`).toEqual([order.order_id, 'error', order.order_id, order.order_id]);
      }
    } finally {
      await close();
    }
  });

  it('get each SSE event in one write: one HTTP chunk holds a whole event', async ({ t }) => {
    const userId = `chunk-${randomBytes(6).toString('hex')}`;
    const order = await makeOrder(t, {}, userId);
    const server = await listen(t);
    const body = JSON.stringify({ query: USER_ORDERS, variables: { userId } });
    const { port } = new URL(server.base);
    const socket = connect(Number(port), '127.0.0.1');
    let raw = '';
    socket.on('data', (data) => (raw += data.toString('latin1')));
    socket.write(
      `POST /graphql HTTP/1.1\r\nHost: test\r\nAccept: text/event-stream\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    try {
      const events = () => raw.split('event: next').length - 1;
      // Live once the first published event arrives; then three more.
      for (const deadline = Date.now() + WAIT_MS; events() === 0; ) {
        if (Date.now() > deadline) throw new Error(`no event over the raw SSE stream: ${raw}`);
        publish(t, userId, order.order_id)();
        await new Promise((r) => setTimeout(r, 50));
      }
      const wanted = events() + 3;
      for (let i = 0; i < 3; i++) publish(t, userId, order.order_id)();
      for (const deadline = Date.now() + WAIT_MS; events() < wanted; ) {
        if (Date.now() > deadline) throw new Error(`got ${events()} of ${wanted} events: ${raw}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      const [head, chunked] = raw.split('\r\n\r\n', 2) as [string, string];
      expect(head).toMatch(/transfer-encoding: chunked/i);
      const chunks = httpChunks(raw.slice(head.length + 4));
      expect(chunked.length).toBeGreaterThan(0);
      const withEvents = chunks.filter((chunk) => chunk.includes('event:') || chunk.includes('data:'));
      expect(withEvents.length).toBeGreaterThanOrEqual(4);
      for (const chunk of withEvents) {
        expect(chunk).toMatch(/^event: next\ndata: \{.*\}\n\n$/s);
        expect(chunk.split('event: next').length - 1).toBe(1);
        expect(chunk).toContain(order.order_id);
      }
    } finally {
      socket.destroy();
      await bounded(server.close(), WAIT_MS, 'server close');
    }
  });

  it('drop a subscriber that stops reading with SLOW_CONSUMER; the others get every event', async ({ t }) => {
    const userId = `slow-${randomBytes(6).toString('hex')}`;
    const order = await makeOrder(t, {}, userId);
    const reader = await subscribeSse(t.app, USER_ORDERS, { userId });
    // An SSE response nobody reads: Yoga pulls no further than its stream's buffer.
    const stalled = await t.app.fetch('http://test/graphql', {
      method: 'POST',
      headers: { accept: 'text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ query: USER_ORDERS, variables: { userId } }),
    });
    try {
      await reader.inbox.untilLive(publish(t, userId, order.order_id));
      const events = SUBSCRIBER_QUEUE_LIMIT + 50;
      const start = reader.inbox.size;
      for (let i = 0; i < events; i++) publish(t, userId, order.order_id)();
      for (const deadline = Date.now() + 4 * WAIT_MS; reader.inbox.size < start + events; ) {
        if (Date.now() > deadline) throw new Error(`the reading subscriber got ${reader.inbox.size - start} of ${events}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      const text = await bounded(stalled.text(), WAIT_MS, 'the stalled stream ends');
      expect(text).toContain('SLOW_CONSUMER');
      expect(text).toContain('event: complete');
      // It was let go, not held: far fewer results than were published reached its stream.
      expect(text.split('event: next').length - 1).toBeLessThan(events);
    } finally {
      await reader.close();
    }
  });

  it('keep their stream when the subscriber that started it leaves', async ({ t }) => {
    const userId = `first-${randomBytes(6).toString('hex')}`;
    const order = await makeOrder(t, {}, userId);
    const first = await subscribeSse(t.app, USER_ORDERS, { userId });
    await first.inbox.untilLive(publish(t, userId, order.order_id));
    const second = await subscribeSse(t.app, USER_ORDERS, { userId });
    try {
      await second.inbox.untilLive(publish(t, userId, order.order_id));
      await first.close();
      const before = second.inbox.size;
      publish(t, userId, order.order_id)();
      for (const deadline = Date.now() + WAIT_MS; second.inbox.size === before; ) {
        if (Date.now() > deadline) throw new Error('the second subscriber lost its stream with the first');
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(second.inbox.last()?.errors).toBeUndefined();
    } finally {
      await second.close();
    }
  });
});

/** The chunks of an HTTP/1.1 chunked body, as the server wrote them (the last, unfinished one left out). */
function httpChunks(body: string): string[] {
  const chunks: string[] = [];
  for (let at = 0; ; ) {
    const lineEnd = body.indexOf('\r\n', at);
    if (lineEnd < 0) return chunks;
    const size = Number.parseInt(body.slice(at, lineEnd), 16);
    if (!(size > 0) || lineEnd + 2 + size > body.length) return chunks;
    chunks.push(body.slice(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}
