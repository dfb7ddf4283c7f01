import { describe, expect } from 'vitest';
import { it, type TestApp } from './support/app.ts';
import { escrowEvent, postEvent } from './support/events.ts';
import { makeQuote, newSecret, orderBody } from './support/fixtures.ts';

/** An order with its secret, created now. */
async function newOrder(t: TestApp, userId = 'lifecycle-user') {
  const { secret, commitmentHash } = newSecret();
  const quote = await makeQuote(t);
  const reply = await t.rest('POST', '/orders', orderBody(quote, { commitment_hash: commitmentHash }, userId));
  expect(reply.status).toBe(201);
  const order = reply.body.result;
  return { order, secret, src: order.source_intent.swap_id as string, dst: order.destination_intent.swap_id as string };
}

async function status(t: TestApp, orderId: string) {
  return (await t.rest('GET', `/orders/${orderId}`)).body.result.status as string;
}

describe('escrow events move an order through its statuses', () => {
  it('plays the happy path: pending -> source_created -> destination_created -> destination_claimed -> completed', async ({ t, clock }) => {
    const { order, secret, src, dst } = await newOrder(t);
    const steps: [string, unknown, string][] = [
      [src, escrowEvent('create', 100), 'source_created'],
      [dst, escrowEvent('create', 5000), 'destination_created'],
      [dst, escrowEvent('claim', 5003, { commitment: secret }), 'destination_claimed'],
      [src, escrowEvent('claim', 104, { commitment: secret }), 'completed'],
    ];
    let previousUpdate = order.updated_at;
    for (const [swapId, event, expected] of steps) {
      clock.advance(5);
      const reply = await postEvent(t, swapId, event);
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(reply.body.result.status).toBe(expected);
      expect(reply.body.result.updated_at > previousUpdate).toBe(true);
      previousUpdate = reply.body.result.updated_at;
    }
    const final = (await t.rest('GET', `/orders/${order.order_id}`)).body.result;
    expect(final.destination_intent).toMatchObject({ claim_block_number: 5003, commitment: secret });
    expect(final.source_intent.commitment).toBe(secret);
  });

  it('keeps the commitment hidden until a claim reveals it', async ({ t }) => {
    const { order, src, dst, secret } = await newOrder(t);
    await postEvent(t, src, escrowEvent('create', 10));
    await postEvent(t, dst, escrowEvent('create', 20));
    const before = (await t.rest('GET', `/orders/${order.order_id}`)).body.result;
    expect(before.source_intent.commitment).toBeNull();
    expect(before.destination_intent.commitment).toBeNull();
    const gql = await t.gql(`{ order(orderId: "${order.order_id}") { sourceIntent { commitment } destinationIntent { commitment } } }`);
    expect(gql.data.order).toEqual({ sourceIntent: { commitment: null }, destinationIntent: { commitment: null } });
    expect(JSON.stringify(before)).not.toContain(secret);
  });

  it('accepts the two escrows in any order: a destination seen first stays pending', async ({ t }) => {
    const { order, src, dst } = await newOrder(t);
    expect((await postEvent(t, dst, escrowEvent('create', 50))).body.result.status).toBe('pending');
    expect((await postEvent(t, src, escrowEvent('create', 9))).body.result.status).toBe('destination_created');
    expect(await status(t, order.order_id)).toBe('destination_created');
  });

  it('completes on a source claim seen before the destination claim', async ({ t }) => {
    const { src, dst, secret } = await newOrder(t);
    await postEvent(t, src, escrowEvent('create', 1));
    await postEvent(t, dst, escrowEvent('create', 1));
    expect((await postEvent(t, src, escrowEvent('claim', 2, { commitment: secret }))).body.result.status).toBe('completed');
  });

  it('refunds: destination cancelled -> refunding, then source cancelled -> cancelled', async ({ t }) => {
    const { src, dst } = await newOrder(t);
    await postEvent(t, src, escrowEvent('create', 1));
    await postEvent(t, dst, escrowEvent('create', 1));
    expect((await postEvent(t, dst, escrowEvent('cancel', 9))).body.result.status).toBe('refunding');
    expect((await postEvent(t, src, escrowEvent('cancel', 9))).body.result.status).toBe('cancelled');
  });

  it('is refunding by the clock once the destination expires unclaimed', async ({ t, clock }) => {
    const { order, src, dst } = await newOrder(t);
    await postEvent(t, src, escrowEvent('create', 1));
    await postEvent(t, dst, escrowEvent('create', 1));
    clock.advance(12 * 3600);
    expect(await status(t, order.order_id)).toBe('refunding');
  });

  it('a source cancelled after the user claimed the destination is completed', async ({ t }) => {
    const { src, dst, secret } = await newOrder(t);
    await postEvent(t, src, escrowEvent('create', 1));
    await postEvent(t, dst, escrowEvent('create', 1));
    await postEvent(t, dst, escrowEvent('claim', 2, { commitment: secret }));
    expect((await postEvent(t, src, escrowEvent('cancel', 3))).body.result.status).toBe('completed');
  });

  it('stays expired when the source escrow appears only after the deadline', async ({ t, clock }) => {
    const late = await newOrder(t);
    const deadline = new Date(Date.parse(late.order.created_at) + t.config.orderDeadlineSeconds * 1000);
    clock.advance(t.config.orderDeadlineSeconds + 60);
    const after = await postEvent(t, late.src, escrowEvent('create', 1, {}, new Date(deadline.getTime() + 30_000)));
    expect(after.body.result.status).toBe('expired');
    // A watcher that lags reports an escrow made in time: that one counts.
    const onTime = await newOrder(t);
    const inTime = new Date(Date.parse(onTime.order.created_at) + 60_000);
    expect((await postEvent(t, onTime.src, escrowEvent('create', 1, {}, inTime))).body.result.status).toBe('source_created');
  });

  it('treats the same event twice as a no-op', async ({ t, clock }) => {
    const { src } = await newOrder(t);
    const event = escrowEvent('create', 7);
    const first = await postEvent(t, src, event);
    clock.advance(10);
    const again = await postEvent(t, src, event);
    expect(again.status).toBe(200);
    expect(again.body.result.updated_at).toBe(first.body.result.updated_at);
  });
});

describe('events no chain can produce are refused with 409 and change nothing', () => {
  it.for<[string, (o: Awaited<ReturnType<typeof newOrder>>) => Promise<unknown[][]>]>([
    [
      'a claim before its create',
      async (o: Awaited<ReturnType<typeof newOrder>>) => [[o.src, escrowEvent('claim', 5, { commitment: o.secret })]],
    ],
    ['a cancel before its create', async (o: Awaited<ReturnType<typeof newOrder>>) => [[o.src, escrowEvent('cancel', 5)]]],
    [
      'a second, different create',
      async (o: Awaited<ReturnType<typeof newOrder>>) => [
        [o.src, escrowEvent('create', 5)],
        [o.src, escrowEvent('create', 6)],
      ],
    ],
    [
      'a claim in an earlier block than its create',
      async (o: Awaited<ReturnType<typeof newOrder>>) => [
        [o.src, escrowEvent('create', 50)],
        [o.src, escrowEvent('claim', 49, { commitment: o.secret })],
      ],
    ],
    [
      'a claim after a cancel',
      async (o: Awaited<ReturnType<typeof newOrder>>) => [
        [o.src, escrowEvent('create', 5)],
        [o.src, escrowEvent('cancel', 6)],
        [o.src, escrowEvent('claim', 7, { commitment: o.secret })],
      ],
    ],
    [
      'a cancel after a claim',
      async (o: Awaited<ReturnType<typeof newOrder>>) => [
        [o.src, escrowEvent('create', 5)],
        [o.src, escrowEvent('claim', 6, { commitment: o.secret })],
        [o.src, escrowEvent('cancel', 7)],
      ],
    ],
    [
      'a claim whose commitment does not hash to commitment_hash',
      async (o: Awaited<ReturnType<typeof newOrder>>) => [
        [o.src, escrowEvent('create', 5)],
        [o.src, escrowEvent('claim', 6, { commitment: newSecret().secret })],
      ],
    ],
  ])('%s', async ([_name, build], { t }) => {
    const o = await newOrder(t);
    const events = await build(o);
    const last = events.pop()!;
    for (const [swapId, event] of events) expect((await postEvent(t, swapId as string, event)).status).toBe(200);
    const before = (await t.rest('GET', `/orders/${o.order.order_id}`)).body.result;
    const refused = await postEvent(t, last[0] as string, last[1]);
    expect(refused.status).toBe(409);
    expect(refused.body.status).toBe('Error');
    const after = (await t.rest('GET', `/orders/${o.order.order_id}`)).body.result;
    expect(after).toEqual(before);
  });
});

describe('ingestion endpoint', () => {
  it('needs the watcher key (401), checks the body (400) and the swap id (404)', async ({ t }) => {
    const { src } = await newOrder(t);
    expect((await postEvent(t, src, escrowEvent('create', 1), 'wrong-key')).status).toBe(401);
    expect((await t.rest('POST', `/intents/${src}/events`, escrowEvent('create', 1))).status).toBe(401);
    // The key is checked before the body: without it, a body that would fail validation is still a 401.
    expect(await postEvent(t, src, {}, 'wrong-key')).toMatchObject({
      status: 401,
      body: { status: 'Error', result: 'recording escrow events needs Authorization: Bearer <WATCHER_KEY>' },
    });
    const bad = await postEvent(t, src, { ...escrowEvent('create', 1), block_number: -1 });
    expect(bad).toMatchObject({ status: 400, body: { result: 'block_number must be a non-negative integer' } });
    const noSecret = await postEvent(t, src, escrowEvent('claim', 1));
    expect(noSecret).toMatchObject({ status: 400, body: { result: 'commitment is required' } });
    const kind = await postEvent(t, src, { ...escrowEvent('create', 1), kind: 'refund' });
    expect(kind.status).toBe(400);
    expect((await postEvent(t, '0'.repeat(64), escrowEvent('create', 1))).status).toBe(404);
    expect((await postEvent(t, 'nope', escrowEvent('create', 1))).status).toBe(404);
  });

  it('is the recordEscrowEvent mutation in GraphQL, with the same key rule', async ({ t }) => {
    const { src } = await newOrder(t);
    const mutation = `mutation ($input: RecordEscrowEventInput!) { recordEscrowEvent(input: $input) { status } }`;
    const input = { swapId: src, kind: 'CREATE', txHash: `0x${'ab'.repeat(32)}`, blockNumber: 3, timestamp: '2026-01-01T00:00:00Z' };
    const anonymous = await t.gql(mutation, { input });
    expect(anonymous.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const response = await t.app.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer test-watcher-key' },
      body: JSON.stringify({ query: mutation, variables: { input } }),
    });
    expect(await response.json()).toEqual({ data: { recordEscrowEvent: { status: 'SOURCE_CREATED' } } });
  });
});

describe('stats follow the lifecycle', () => {
  // Counts every order in its database, so it has one of its own.
  it('counts completed and cancelled orders and the average completion time', async ({ apps }) => {
    const fresh = await apps({ freshDatabase: true });
    const quoteAndOrder = async () => {
      const { secret, commitmentHash } = newSecret();
      const quote = await makeQuote(fresh);
      const order = (await fresh.rest('POST', '/orders', orderBody(quote, { commitment_hash: commitmentHash }))).body.result;
      return { order, secret };
    };
    const created = fresh.clock.now();
    const done = await quoteAndOrder();
    const cancelled = await quoteAndOrder();
    await quoteAndOrder(); // stays pending
    const at = (s: number) => new Date(created.getTime() + s * 1000);
    const ev = (swapId: string, e: unknown) => postEvent(fresh, swapId, e);
    await ev(done.order.source_intent.swap_id, escrowEvent('create', 1, {}, at(60)));
    await ev(done.order.destination_intent.swap_id, escrowEvent('create', 1, {}, at(120)));
    await ev(done.order.destination_intent.swap_id, escrowEvent('claim', 2, { commitment: done.secret }, at(600)));
    await ev(cancelled.order.source_intent.swap_id, escrowEvent('create', 1, {}, at(60)));
    await ev(cancelled.order.source_intent.swap_id, escrowEvent('cancel', 9, {}, at(90000)));
    const stats = (await fresh.rest('GET', '/stats')).body.result.all_time;
    expect(stats).toMatchObject({
      total_orders: 3,
      completed_orders: 1,
      cancelled_orders: 1,
      in_progress_orders: 1,
      avg_completion_time_secs: 600,
    });
  });
});
