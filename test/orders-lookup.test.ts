import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import { describe, expect } from 'vitest';
import { it, type Json, type TestApp } from './support/app.ts';
import { escrowEvent, postEvent } from './support/events.ts';
import { makeOrder, makeQuote, newSecret, orderBody } from './support/fixtures.ts';

/** GET /orders?tx_hash=, ?swap_id=, ?ids= and OrderFilter.txHash, swapId, ids. */

const hex64 = () => randomBytes(32).toString('hex');
const ids = (page: Json) => (page.data as { order_id: string }[]).map((order) => order.order_id);

async function recorded(t: TestApp, swapId: string, event: Json) {
  const reply = await postEvent(t, swapId, event);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return event.tx_hash as string;
}

/** An order whose secret is known, so its destination can be claimed. */
async function claimableOrder(t: TestApp, userId: string) {
  const { secret, commitmentHash } = newSecret();
  const reply = await t.rest('POST', '/orders', orderBody(await makeQuote(t), { commitment_hash: commitmentHash }, userId));
  expect(reply.status).toBe(201);
  return { order: reply.body.result as Json, secret };
}

const ORDERS_QUERY = `query ($filter: OrderFilter, $page: Int, $limit: Int) {
  orders(filter: $filter, page: $page, limit: $limit) { total data { orderId } }
}`;
const CONNECTION_QUERY = `query ($filter: OrderFilter, $first: Int) {
  ordersConnection(filter: $filter, first: $first) { edges { node { orderId } } }
}`;

async function gqlOrders(t: TestApp, filter: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const reply = await t.gql(ORDERS_QUERY, { filter, ...extra });
  expect(reply.errors).toBeUndefined();
  return (reply.data.orders.data as { orderId: string }[]).map((order) => order.orderId);
}

async function gqlConnection(t: TestApp, filter: Record<string, unknown>) {
  const reply = await t.gql(CONNECTION_QUERY, { filter, first: 50 });
  expect(reply.errors).toBeUndefined();
  return (reply.data.ordersConnection.edges as { node: { orderId: string } }[]).map((edge) => edge.node.orderId);
}

describe('orders by transaction hash', () => {
  it('finds the order of any of its intents’ create, claim, cancel or bridge transactions, in any letter case', async ({ t }) => {
    const { order, secret } = await claimableOrder(t, 'tx-user');
    const other = await makeOrder(t, {}, 'tx-other');
    const source = order.source_intent.swap_id;
    const destination = order.destination_intent.swap_id;
    const sourceCreate = await recorded(t, source, escrowEvent('create', 10));
    const destinationCreate = await recorded(t, destination, escrowEvent('create', 11));
    const destinationClaim = await recorded(t, destination, escrowEvent('claim', 12, { commitment: secret }));
    await recorded(t, other.source_intent.swap_id, escrowEvent('create', 13));
    // Bridge transactions come with a hop, which no route writes yet: set as a watcher of the hop would.
    const bridge = `0x${hex64()}`;
    await t.db.prisma.intent.update({ where: { swapId: destination }, data: { bridgeTxHash: bridge } });

    for (const hash of [sourceCreate, destinationCreate, destinationClaim, bridge]) {
      const upper = `0X${hash.slice(2).toUpperCase()}`;
      for (const spelling of [hash, upper]) {
        const reply = await t.rest('GET', `/orders?tx_hash=${spelling}`);
        expect(reply.status).toBe(200);
        expect(ids(reply.body.result), spelling).toEqual([order.order_id]);
        expect(reply.body.result.total).toBe(1);
      }
      expect(await gqlOrders(t, { txHash: upper })).toEqual([order.order_id]);
      expect(await gqlConnection(t, { txHash: upper })).toEqual([order.order_id]);
    }
    // A hash nobody used: no order, not every order.
    expect((await t.rest('GET', `/orders?tx_hash=0x${hex64()}`)).body.result).toMatchObject({ data: [], total: 0 });
  });

  it('finds a cancel transaction, and every order of a transaction shared by several', async ({ t }) => {
    const first = await makeOrder(t, {}, 'batch-user');
    t.clock.advance(1);
    const second = await makeOrder(t, {}, 'batch-user');
    // One Bitcoin transaction funding two escrows: a txid, 64 hex without 0x, sent in capitals.
    const txid = hex64().toUpperCase();
    await recorded(t, first.source_intent.swap_id, escrowEvent('create', 20, { tx_hash: txid }));
    await recorded(t, second.source_intent.swap_id, escrowEvent('create', 20, { tx_hash: txid }));
    const found = await t.rest('GET', `/orders?tx_hash=${txid.toLowerCase()}`);
    expect(ids(found.body.result)).toEqual([second.order_id, first.order_id]);

    // Pages: one order per page, newest first, with the total of the lookup.
    const page2 = await t.rest('GET', `/orders?tx_hash=${txid}&limit=1&page=2`);
    expect(page2.body.result).toMatchObject({ total: 2, total_pages: 2, page: 2 });
    expect(ids(page2.body.result)).toEqual([first.order_id]);
    expect(await gqlOrders(t, { txHash: txid }, { limit: 1, page: 1 })).toEqual([second.order_id]);

    // The source escrow of the second is cancelled once its timelock passed.
    t.clock.advance(7 * 86_400);
    const cancelAt = t.clock.now();
    const cancel = await recorded(t, second.source_intent.swap_id, escrowEvent('cancel', 30, {}, cancelAt));
    expect(ids((await t.rest('GET', `/orders?tx_hash=${cancel}`)).body.result)).toEqual([second.order_id]);
  });

  it('takes a Solana signature as it is: base58 is case-sensitive', async ({ t }) => {
    const order = await makeOrder(t, {}, 'sol-user');
    const signature = base58.encode(randomBytes(64));
    await recorded(t, order.source_intent.swap_id, escrowEvent('create', 40, { tx_hash: signature }));
    expect(ids((await t.rest('GET', `/orders?tx_hash=${signature}`)).body.result)).toEqual([order.order_id]);
    expect(await gqlOrders(t, { txHash: signature })).toEqual([order.order_id]);
    // Another spelling is another signature (or none): not this order.
    const swapped = signature.replace(/[a-km-z]/, (c) => c.toUpperCase());
    const other = await t.rest('GET', `/orders?tx_hash=${swapped}`);
    if (other.status === 200) expect(other.body.result.total).toBe(0);
    else expect(other.status).toBe(400);
  });

  it('combines with the other filters', async ({ t }) => {
    const order = await makeOrder(t, {}, 'combo-user');
    const hash = await recorded(t, order.source_intent.swap_id, escrowEvent('create', 50));
    const matching = await t.rest('GET', `/orders?tx_hash=${hash}&status=source_created&source_chain=bitcoin`);
    expect(ids(matching.body.result)).toEqual([order.order_id]);
    const excluded = await t.rest('GET', `/orders?tx_hash=${hash}&status=pending`);
    expect(excluded.body.result).toMatchObject({ data: [], total: 0 });
    expect(await gqlOrders(t, { txHash: hash, sourceChain: 'ethereum' })).toEqual([]);
    expect(await gqlConnection(t, { txHash: hash, status: ['SOURCE_CREATED'] })).toEqual([order.order_id]);
  });

  it('refuses a malformed hash with a 400 naming tx_hash', async ({ t }) => {
    for (const bad of ['0x1234', `0x${hex64()}00`, 'not-a-hash', `${hex64()}g`, '']) {
      const reply = await t.rest('GET', `/orders?tx_hash=${encodeURIComponent(bad)}`);
      expect(reply.status, bad).toBe(400);
      expect(reply.body).toMatchObject({ status: 'Error', result: expect.stringMatching(/^tx_hash must be a transaction hash/) });
    }
    const gql = await t.gql(ORDERS_QUERY, { filter: { txHash: '0x12' } });
    expect(gql.errors?.[0]).toMatchObject({
      message: expect.stringMatching(/^filter\.txHash must be a transaction hash/),
      extensions: { code: 'BAD_REQUEST' },
    });
  });
});

describe('orders by swap id', () => {
  it('finds the order of its source or destination intent, spelled either way', async ({ t }) => {
    const order = await makeOrder(t, {}, 'swap-user');
    await makeOrder(t, {}, 'swap-other');
    const { swap_id: source } = order.source_intent;
    const { swap_id: destination } = order.destination_intent;
    for (const swapId of [source, destination, `0x${destination.toUpperCase()}`]) {
      expect(ids((await t.rest('GET', `/orders?swap_id=${swapId}`)).body.result), swapId).toEqual([order.order_id]);
      expect(await gqlOrders(t, { swapId })).toEqual([order.order_id]);
      expect(await gqlConnection(t, { swapId })).toEqual([order.order_id]);
    }
    expect((await t.rest('GET', `/orders?swap_id=${hex64()}`)).body.result).toMatchObject({ data: [], total: 0 });
    expect((await t.rest('GET', `/orders?swap_id=${source}&status=cancelled`)).body.result.total).toBe(0);
    expect(await gqlOrders(t, { swapId: source, status: ['PENDING'] })).toEqual([order.order_id]);

    const bad = await t.rest('GET', '/orders?swap_id=abc');
    expect(bad.status).toBe(400);
    expect(bad.body.result).toMatch(/^swap_id must be a swap id/);
    const gql = await t.gql(ORDERS_QUERY, { filter: { swapId: 'abc' } });
    expect(gql.errors?.[0]?.message).toMatch(/^filter\.swapId must be a swap id/);
  });
});

describe('orders by ids', () => {
  it('answers the known ones, newest first; unknown and impossible ids are absent', async ({ t }) => {
    // A second apart: newest first is then c, b, a (one second holds orders in id order).
    const a = await makeOrder(t, {}, 'ids-user');
    t.clock.advance(1);
    const b = await makeOrder(t, { source: 'ethereum:usdc', destination: 'base:usdc', amount: '1000000' }, 'ids-user');
    t.clock.advance(1);
    const c = await makeOrder(t, {}, 'ids-user');
    const list = [a.order_id, b.order_id.toUpperCase(), hex64(), 'not-an-id', c.order_id].join(',');
    const reply = await t.rest('GET', `/orders?ids=${list}`);
    expect(reply.status).toBe(200);
    expect(ids(reply.body.result)).toEqual([c.order_id, b.order_id, a.order_id]);
    expect(reply.body.result.total).toBe(3);

    expect(ids((await t.rest('GET', `/orders?ids=${list}&source_chain=ethereum`)).body.result)).toEqual([b.order_id]);
    expect(ids((await t.rest('GET', `/orders?ids=${list}&limit=2&page=2`)).body.result)).toEqual([a.order_id]);
    expect(await gqlOrders(t, { ids: [a.order_id, c.order_id, 'x'] })).toEqual([c.order_id, a.order_id]);
    expect(await gqlConnection(t, { ids: [a.order_id, b.order_id], sourceChain: 'bitcoin' })).toEqual([a.order_id]);
    // Lookups combine with each other: the order of this swap among these ids.
    expect(await gqlOrders(t, { ids: [a.order_id, c.order_id], swapId: c.source_intent.swap_id })).toEqual([c.order_id]);
    expect(await gqlOrders(t, { ids: [a.order_id], swapId: c.source_intent.swap_id })).toEqual([]);
  });

  it('refuses more than 100 ids with a 400 naming ids', async ({ t }) => {
    const many = Array.from({ length: 101 }, hex64);
    const reply = await t.rest('GET', `/orders?ids=${many.join(',')}`);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ status: 'Error', result: 'ids must list at most 100 order ids' });
    expect((await t.rest('GET', `/orders?ids=${many.slice(1).join(',')}`)).status).toBe(200);
    const gql = await t.gql(ORDERS_QUERY, { filter: { ids: many } });
    expect(gql.errors?.[0]).toMatchObject({ message: 'filter.ids must list at most 100 order ids', extensions: { code: 'BAD_REQUEST' } });
  });
});
