import { describe, expect } from 'vitest';
import { intentRead } from '../src/db/row-store.ts';
import { NEWEST_FIRST } from '../src/domain/order-list.ts';
import { findQuote } from '../src/domain/quotes.ts';
import { Prisma } from '../src/generated/prisma/client.ts';
import { it } from './support/app.ts';
import { escrowEvent, postEvent } from './support/events.ts';
import { makeOrder, makeQuote, orderBody } from './support/fixtures.ts';

/**
 * The row store reads the list pages and writes quotes and orders below Prisma Client. Its rows
 * must be exactly what Prisma Client returns for the same rows: same fields, same types (Decimal,
 * Date, bigint, Json, null), same order, on every kind of value a row can hold.
 */
const USER = 'reader-user';
let swapIds: string[];
let orderIds: string[];

it.beforeAll(async ({ t }) => {
  // A fresh order, one with on-chain facts on both sides, and one with amounts past 2^53.
  const fresh = await makeOrder(t, {}, USER);
  t.clock.advance(2);
  const active = await makeOrder(t, {}, USER);
  for (const [swapId, block] of [
    [active.source_intent.swap_id, 1000],
    [active.destination_intent.swap_id, 2_000_000],
  ] as const) {
    expect((await postEvent(t, swapId, escrowEvent('create', block, {}, t.clock.now()))).status).toBe(200);
  }
  t.clock.advance(2);
  const quote = await makeQuote(t, { source: 'ethereum:eth', destination: 'arbitrum:eth', amount: '199999999999999999999' });
  const whale = (await t.rest('POST', '/orders', orderBody(quote, {}, USER))).body.result;
  // The hop fields are never written by the API yet; give one intent every one of them.
  await t.db.prisma.intent.update({
    where: { swapId: whale.destination_intent.swap_id },
    data: {
      l1Hop: true,
      hopBridgeFactory: '0xfactory',
      hopDestBlockchainId: '0xchain',
      hopRecipient: '0xrecipient',
      hopFeeToken: '0xfee',
      hopRelayerFee: new Prisma.Decimal('123456789012345678901234567890'),
      finalChain: 'base',
      finalTokenAddress: '0xtoken',
      bridgeTxHash: '0xbridge',
    },
  });
  const orders = [fresh, active, whale];
  orderIds = orders.map((o) => o.order_id);
  swapIds = orders.flatMap((o) => [o.source_intent.swap_id, o.destination_intent.swap_id]);
});

const bySwapId = <T extends { swapId: string }>(rows: T[]) => [...rows].sort((a, b) => a.swapId.localeCompare(b.swapId));

describe('row store reads', () => {
  it('reads intents exactly as Prisma Client does', async ({ t }) => {
    const fast = await t.db.rows.intentsBySwapId(swapIds);
    const prisma = await t.db.prisma.intent.findMany({ where: { swapId: { in: swapIds } } });
    expect(fast).toHaveLength(6);
    expect(bySwapId(fast)).toEqual(bySwapId(prisma));
    const hop = fast.find((i) => i.l1Hop)!;
    expect(hop.hopRelayerFee).toBeInstanceOf(Prisma.Decimal);
    expect(hop.hopRelayerFee!.toFixed()).toBe('123456789012345678901234567890');
    const created = fast.find((i) => i.createBlockNumber !== null)!;
    expect(typeof created.createBlockNumber).toBe('bigint');
    expect(created.createTimestamp).toBeInstanceOf(Date);
  });

  it('reads a user page exactly as Prisma Client does, newest first', async ({ t }) => {
    for (const [take, skip] of [
      [20, 0],
      [2, 0],
      [2, 1],
      [5, 3],
    ]) {
      const fast = await t.db.rows.ordersInOrder({ userId: USER, limit: take!, offset: skip! });
      const prisma = await t.db.prisma.order.findMany({ where: { userId: USER }, orderBy: NEWEST_FIRST, take, skip });
      expect(fast.map((o) => o.id)).toEqual(prisma.map((o) => o.id));
      expect(fast).toEqual(prisma);
    }
    expect((await t.db.rows.ordersInOrder({ userId: USER, limit: 20 })).map((o) => o.id)).toEqual([...orderIds].reverse());
  });

  it('reads a keyset page on either side of an order as Prisma Client reads it, newest first', async ({ t }) => {
    // Two more orders in the same second as the last one: the id breaks the tie.
    for (const user of [USER, 'another-user']) await makeOrder(t, {}, user);
    const all = await t.db.prisma.order.findMany({ orderBy: NEWEST_FIRST });
    for (const userId of [undefined, USER]) {
      const mine = all.filter((o) => userId === undefined || o.userId === userId);
      for (let at = 0; at < mine.length; at++) {
        const after = { createdAt: mine[at]!.createdAt, id: mine[at]!.id };
        const older = await t.db.rows.ordersInOrder({ userId, after, limit: 2 });
        expect(older).toEqual(mine.slice(at + 1, at + 3));
        const newer = await t.db.rows.ordersInOrder({ userId, after, newer: true, limit: 2 });
        expect(newer).toEqual(mine.slice(Math.max(0, at - 2), at));
      }
      // No key: the newest, or (reading towards the newest) the oldest, both newest first.
      expect(await t.db.rows.ordersInOrder({ userId, limit: 2 })).toEqual(mine.slice(0, 2));
      expect(await t.db.rows.ordersInOrder({ userId, newer: true, limit: 2 })).toEqual(mine.slice(-2));
    }
  });

  it('reads a page with both intents of each order in the same statement, as Prisma Client reads them', async ({ t }) => {
    const mine = await t.db.prisma.order.findMany({ where: { userId: USER }, orderBy: NEWEST_FIRST });
    for (const page of [
      await t.db.rows.ordersInOrder({ userId: USER, limit: 20, withIntents: true }),
      await t.db.rows.ordersById(
        mine.map((o) => o.id),
        true,
      ),
    ]) {
      expect(page).toEqual(mine);
      for (const order of page) {
        for (const swapId of [order.sourceSwapId, order.destinationSwapId]) {
          expect(intentRead(order, swapId)).toEqual(await t.db.prisma.intent.findUniqueOrThrow({ where: { swapId } }));
        }
      }
    }
    // Without them, nothing is attached: the intents are then the loader's to read.
    const [plain] = await t.db.rows.ordersInOrder({ userId: USER, limit: 1 });
    expect(intentRead(plain!, plain!.sourceSwapId)).toBeUndefined();
  });

  it('reads orders by id exactly as Prisma Client does, newest first', async ({ t }) => {
    const fast = await t.db.rows.ordersById(orderIds);
    const prisma = await t.db.prisma.order.findMany({ where: { id: { in: orderIds } }, orderBy: NEWEST_FIRST });
    expect(fast).toEqual(prisma);
    expect(fast[0]!.volumeUsd).toBeInstanceOf(Prisma.Decimal);
    expect(await t.db.rows.ordersById([])).toEqual([]);
    expect(await t.db.rows.intentsBySwapId(['0'.repeat(64)])).toEqual([]);
  });
});

describe('row store writes', () => {
  it('stores the quote an order consumed as its id carried it, and reads it exactly as Prisma Client does', async ({ t }) => {
    const quote = await makeQuote(t, { source: 'ethereum:eth', destination: 'arbitrum:eth', amount: '199999999999999999999' });
    const signed = await findQuote(t.runtime.deps, quote.quote_id);
    const created = (await t.rest('POST', '/orders', orderBody(quote, {}, 'stored-quote'))).body.result;
    const stored = await t.db.prisma.quote.findUniqueOrThrow({ where: { id: quote.quote_id } });
    expect(stored).toEqual({ ...signed, consumedBy: created.order_id });
    expect(await t.db.rows.quoteById(quote.quote_id)).toEqual(stored);
    expect(stored.sourceAmount.toFixed()).toBe('199999999999999999999');
    expect(await t.db.rows.quoteById('q_none')).toBeNull();
  });

  it('returns the order and intents it wrote exactly as Prisma Client reads them back', async ({ t }) => {
    const quote = await makeQuote(t);
    const created = (await t.rest('POST', '/orders', orderBody(quote, {}, 'writer'))).body.result;
    // The API answered from the returned rows; Prisma Client reading them now must agree field for field.
    const order = await t.db.prisma.order.findUniqueOrThrow({ where: { id: created.order_id } });
    const again = await t.db.rows.ordersById([created.order_id]);
    expect(again).toEqual([order]);
    expect((await t.db.prisma.quote.findUniqueOrThrow({ where: { id: quote.quote_id } })).consumedBy).toBe(created.order_id);
  });

  it('writes nothing and returns null when the quote is no longer unconsumed', async ({ t }) => {
    const quote = await makeQuote(t);
    const first = (await t.rest('POST', '/orders', orderBody(quote, {}, 'first'))).body.result;
    const stored = await t.db.prisma.order.findUniqueOrThrow({ where: { id: first.order_id } });
    const intents = await t.db.prisma.intent.findMany({ where: { swapId: { in: [stored.sourceSwapId, stored.destinationSwapId] } } });
    const ordersBefore = await t.db.prisma.order.count();
    const intentsBefore = await t.db.prisma.intent.count();
    // The same quote again, with fresh ids everywhere so no unique index could be what stops it.
    const fresh = (id: string) => id.replace(/^./, (c) => (c === 'f' ? '0' : 'f'));
    const result = await t.db.rows.insertOrderConsumingQuote(
      await findQuote(t.runtime.deps, quote.quote_id),
      {
        ...stored,
        id: fresh(stored.id),
        commitmentHash: fresh(stored.commitmentHash),
        sourceSwapId: fresh(stored.sourceSwapId),
        destinationSwapId: fresh(stored.destinationSwapId),
      },
      [
        { ...intents.find((i) => i.side === 'source')!, swapId: fresh(stored.sourceSwapId) },
        { ...intents.find((i) => i.side === 'destination')!, swapId: fresh(stored.destinationSwapId) },
      ],
    );
    expect(result).toBeNull();
    expect(await t.db.prisma.order.count()).toBe(ordersBefore);
    expect(await t.db.prisma.intent.count()).toBe(intentsBefore);
    expect((await t.db.prisma.quote.findUniqueOrThrow({ where: { id: quote.quote_id } })).consumedBy).toBe(first.order_id);
  });
});
