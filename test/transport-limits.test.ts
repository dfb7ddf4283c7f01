import { randomBytes } from 'node:crypto';
import { describe, expect } from 'vitest';
import { MAX_BODY_BYTES } from '../src/http/envelope.ts';
import { it, type TestApp } from './support/app.ts';
import { makeOrder } from './support/fixtures.ts';
import { WsSession, eventually, listen, type Listening } from './support/ws.ts';

/**
 * One set of limits for every transport: what HTTP enforces (body size, rate limits, the GraphQL
 * limits) holds over WebSocket too, each refused operation gets its own error and the socket
 * stays; active subscriptions are capped per WebSocket and per instance, SSE included.
 */

// Each test has IPs of its own (through a trusted X-Forwarded-For), so budgets never mix.
const ip = () => `10.${randomBytes(3).join('.')}`;
const orderId = () => randomBytes(32).toString('hex');
const ORDER_UPDATED = 'subscription ($id: String!) { orderUpdated(orderId: $id) { orderId status } }';

/** A test app on the file's database, on a real port with these settings; closed after the describe block. */
function serve(env: Record<string, string>) {
  const handle: { t: TestApp; server: Listening } = {} as never;
  it.beforeAll(async ({ apps }) => {
    handle.t = await apps({ env });
    handle.server = await listen(handle.t);
  });
  it.afterAll(async () => {
    await handle.server?.close();
    await handle.t?.close();
  });
  return handle;
}

/** A subscribe message of exactly `bytes` bytes: the query padded by an unused variable. */
function subscribeMessage(id: string, bytes: number): string {
  const frame = (pad: string) => JSON.stringify({ id, type: 'subscribe', payload: { query: '{ __typename }', variables: { pad } } });
  return frame('x'.repeat(bytes - frame('').length));
}

describe('GraphQL over WebSocket gets the GraphQL limits and the message limit', () => {
  const s = serve({});

  it(`refuses a message over ${MAX_BODY_BYTES} bytes before reading it (close 1009), answers one of exactly that size`, async () => {
    const session = await WsSession.open(s.server.wsUrl);
    try {
      const fits = subscribeMessage('fits', MAX_BODY_BYTES);
      expect(Buffer.byteLength(fits)).toBe(MAX_BODY_BYTES);
      session.send(fits);
      expect(await session.next('fits')).toEqual({ id: 'fits', type: 'next', payload: { data: { __typename: 'Query' } } });

      session.send(subscribeMessage('too-big', MAX_BODY_BYTES + 1));
      expect((await session.closed()).code).toBe(1009);
    } finally {
      await session.close();
    }
  });

  it('errors an operation past the depth, alias, cost or token limit with its own error; the socket stays open', async () => {
    const session = await WsSession.open(s.server.wsUrl);
    try {
      const nested = (depth: number) => {
        let inner = 'name';
        for (let i = 0; i < depth - 4; i++) inner = `ofType { ${inner} }`;
        return `{ __type(name: "Order") { fields { type { ${inner} } } } }`;
      };
      const aliases = `{ ${Array.from({ length: 16 }, (_, i) => `a${i}: chains { id }`).join(' ')} }`;
      const pages = `{ ${Array.from({ length: 15 }, (_, i) => `p${i}: orders(limit: 100) { data { orderId } }`).join(' ')} }`;
      const tokens = `{ orders(filter: { status: [${Array.from({ length: 1000 }, () => 'PENDING').join(' ')}] }) { total } }`;
      const refused = [
        [nested(7), /depth limit of 6 exceeded/],
        [aliases, /Aliases limit of 15 exceeded/],
        [pages, /cost limit of 25000 exceeded, found 61500/],
        [tokens, /Token limit of 1000 exceeded/],
      ] as const;
      // A live subscription on the same socket, before the refusals.
      const id = (await makeOrder(s.t)).order_id as string;
      session.subscribe('live', ORDER_UPDATED, { id });
      await eventually('the subscription is active', () => s.t.runtime.limits.subscriptions.active === 1);
      for (const [i, [query, message]] of refused.entries()) {
        const answer = await session.run(`refused-${i}`, query);
        expect(answer.type, JSON.stringify(answer)).toBe('error');
        expect(answer.payload[0].message).toMatch(message);
        expect(session.isOpen).toBe(true);
      }
      // The same socket still serves: a query at the depth limit, and the subscription its event.
      expect((await session.run('deep-enough', nested(6))).type).toBe('next');
      s.t.runtime.pubsub.publish('orderUpdated', id, { orderId: id });
      const update = await session.next('live');
      expect(update).toEqual({ id: 'live', type: 'next', payload: { data: { orderUpdated: { orderId: id, status: 'PENDING' } } } });
      expect(s.t.runtime.limits.subscriptions.active).toBe(1);
      expect(session.isOpen).toBe(true);
    } finally {
      await session.close();
    }
  });
});

describe('one rate budget for HTTP and WebSocket, counted per operation', () => {
  const API_KEY = `api-${randomBytes(8).toString('hex')}`;
  const s = serve({ RATE_LIMIT_PER_IP: '3', RATE_LIMIT_PER_KEY: '4', TRUST_PROXY: 'true', API_KEYS: API_KEY });

  const httpStatus = async (me: string) => (await fetch(`${s.server.base}/chains`, { headers: { 'x-forwarded-for': me } })).status;

  it('spends the IP budget with HTTP requests and WebSocket operations alike; a refusal is RATE_LIMITED and the socket stays', async () => {
    const me = ip();
    expect(await httpStatus(me)).toBe(200);
    const session = await WsSession.open(s.server.wsUrl, { headers: { 'x-forwarded-for': me } });
    try {
      // connection_init spent one, as an operation does.
      expect((await session.run('one', '{ __typename }')).type).toBe('next');
      const refused = await session.run('three', '{ __typename }');
      expect(refused.type).toBe('error');
      expect(refused.payload).toEqual([
        expect.objectContaining({
          message: expect.stringMatching(/^rate limit of 3 requests per minute reached; retry in \d+ s$/),
          extensions: { code: 'RATE_LIMITED' },
        }),
      ]);
      // A subscription is an operation too, refused the same way.
      session.subscribe('four', ORDER_UPDATED, { id: orderId() });
      expect((await session.next('four')).payload[0].extensions.code).toBe('RATE_LIMITED');
      expect(s.t.runtime.limits.subscriptions.active).toBe(0);
      expect(session.isOpen).toBe(true);
      // The budget is one: HTTP is refused now too.
      expect(await httpStatus(me)).toBe(429);
    } finally {
      await session.close();
    }
  });

  it('a verified key spends its own budget; an unknown token spends the IP budget', async () => {
    const me = ip();
    const keyed = await WsSession.open(s.server.wsUrl, {
      headers: { 'x-forwarded-for': me },
      connectionParams: { authorization: `Bearer ${API_KEY}` },
    });
    try {
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push((await keyed.run(`k${i}`, '{ __typename }')).type);
      // connection_init spent one of the key's four.
      expect(answers).toEqual(['next', 'next', 'next', 'error']);
    } finally {
      await keyed.close();
    }
    // The key's operations left the IP's budget whole; a made-up token per socket buys nothing more.
    const madeUp = () =>
      WsSession.open(s.server.wsUrl, {
        headers: { 'x-forwarded-for': me },
        connectionParams: { authorization: `Bearer made-up-${randomBytes(8).toString('hex')}` },
      });
    // Each socket's connection_init and operation spend the IP's three: the third socket is not let in.
    const answers = [];
    for (let i = 0; i < 2; i++) {
      const session = await madeUp();
      answers.push((await session.run('op', '{ __typename }')).type);
      await session.close();
    }
    expect(answers).toEqual(['next', 'error']);
    await expect(madeUp()).rejects.toThrow(/socket closed \(4429 rate limit of 3 requests per minute/);
  });

  it('rate-limits SSE subscriptions like any HTTP request', async () => {
    const me = ip();
    const statuses = [];
    for (let i = 0; i < 4; i++) {
      const response = await fetch(`${s.server.base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-forwarded-for': me },
        body: JSON.stringify({ query: ORDER_UPDATED, variables: { id: 'not-an-order-id' } }),
      });
      statuses.push(response.status);
      await response.text();
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});

describe('active subscriptions are capped per connection and per instance', () => {
  const s = serve({ SUBSCRIPTIONS_PER_CONNECTION: '2', SUBSCRIPTIONS_PER_INSTANCE: '3' });
  const active = () => s.t.runtime.limits.subscriptions.active;
  const until = (n: number) => eventually(`${n} active subscriptions`, () => active() === n);

  /** An SSE subscription through the real server; resolves once the response has started. */
  async function sse(id: string) {
    const abort = new AbortController();
    const response = await fetch(`${s.server.base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: ORDER_UPDATED, variables: { id } }),
      signal: abort.signal,
    });
    return { response, cancel: () => abort.abort() };
  }

  /** A refused subscription: one result with the error, then complete. */
  async function expectRefused(session: WsSession, id: string, message: RegExp) {
    session.subscribe(id, ORDER_UPDATED, { id: orderId() });
    const answer = await session.next(id);
    expect(answer.type).toBe('next');
    expect(answer.payload.errors).toEqual([
      expect.objectContaining({ message: expect.stringMatching(message), extensions: { code: 'TOO_MANY_SUBSCRIPTIONS' } }),
    ]);
    expect((await session.next(id)).type).toBe('complete');
    expect(session.isOpen).toBe(true);
  }

  it('refuses past either cap with TOO_MANY_SUBSCRIPTIONS, keeps the socket, and frees slots as subscriptions end', async () => {
    const first = await WsSession.open(s.server.wsUrl);
    const second = await WsSession.open(s.server.wsUrl);
    try {
      first.subscribe('a', ORDER_UPDATED, { id: orderId() });
      first.subscribe('b', ORDER_UPDATED, { id: orderId() });
      await until(2);
      await expectRefused(first, 'c', /a connection may hold at most 2 active subscriptions/);
      expect((await first.run('query', '{ __typename }')).payload).toEqual({ data: { __typename: 'Query' } });

      second.subscribe('d', ORDER_UPDATED, { id: orderId() });
      await until(3);
      await expectRefused(second, 'e', /this server holds its maximum of 3 active subscriptions/);

      // The instance cap covers SSE as well.
      const refused = await sse(orderId());
      const text = await refused.response.text();
      expect(text).toContain('TOO_MANY_SUBSCRIPTIONS');
      expect(text).toContain('event: complete');

      // The client completes one: its slot is free again.
      first.complete('a');
      await until(2);
      second.subscribe('f', ORDER_UPDATED, { id: orderId() });
      await until(3);

      // Operations that fail do not keep a slot.
      second.complete('d');
      await until(2);
      for (const id of ['bad-1', 'bad-2', 'bad-3']) {
        second.subscribe(id, ORDER_UPDATED, { id: 'not-an-order-id' });
        expect((await second.next(id)).payload.errors[0].extensions.code).toBe('NOT_FOUND');
      }
      expect(active()).toBe(2);

      // A closed socket gives back every slot it held.
      await first.close();
      await until(1);
      const stream = await sse(orderId());
      expect(stream.response.status).toBe(200);
      await until(2);
      second.subscribe('g', ORDER_UPDATED, { id: orderId() });
      await until(3);
      // A cancelled SSE stream gives its slot back too.
      stream.cancel();
      await until(2);
    } finally {
      await first.close();
      await second.close();
    }
    await until(0);
  });

  it('refuses an SSE body over the limit with 413, as any GraphQL request', async () => {
    const response = await fetch(`${s.server.base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: ORDER_UPDATED, variables: { id: orderId(), pad: 'x'.repeat(MAX_BODY_BYTES) } }),
    });
    expect(response.status).toBe(413);
    expect(active()).toBe(0);
  });
});
