import { randomBytes } from 'node:crypto';
import { describe, expect } from 'vitest';
import { findQuote } from '../src/domain/quotes.ts';
import { KeyTakenError } from '../src/domain/stores.ts';
import { it, type TestApp } from './support/app.ts';
import { makeOrder, makeQuote } from './support/fixtures.ts';

/**
 * Orders made together share a create statement (src/db/statement-batches.ts): under
 * load, one statement writes many orders. Each order keeps its own outcome: written, its quote found
 * consumed (null), or its key refused, whatever else shared the statement.
 */

const hex = () => randomBytes(32).toString('hex');

/** Orders ready for the row store, each on a fresh quote, built from a real order's rows with fresh keys. */
async function newOrders(app: TestApp, count: number) {
  const model = await makeOrder(app, {}, 'batches');
  const order = await app.db.prisma.order.findUniqueOrThrow({ where: { id: model.order_id } });
  const intents = await app.db.prisma.intent.findMany({ where: { swapId: { in: [order.sourceSwapId, order.destinationSwapId] } } });
  const source = intents.find((i) => i.side === 'source')!;
  const destination = intents.find((i) => i.side === 'destination')!;
  const orders = [];
  for (let i = 0; i < count; i++) {
    const quote = await findQuote(app.runtime.deps, (await makeQuote(app)).quote_id as string);
    const quoteId = quote.id;
    const [id, commitmentHash, sourceSwapId, destinationSwapId] = [hex(), hex(), hex(), hex()];
    orders.push({
      quote,
      order: { ...order, id, quoteId, commitmentHash, sourceSwapId, destinationSwapId },
      intents: [
        { ...source, swapId: sourceSwapId, commitmentHash },
        { ...destination, swapId: destinationSwapId, commitmentHash },
      ] as [typeof source, typeof destination],
    });
  }
  return orders;
}

/** Sends every order at once, as concurrent requests do; each call's outcome. */
function insertAll(app: TestApp, orders: Awaited<ReturnType<typeof newOrders>>) {
  return Promise.allSettled(orders.map(({ quote, order, intents }) => app.db.rows.insertOrderConsumingQuote(quote, order, intents)));
}

/** How many orders each create statement carried: its first parameter names each intent's order, two per order. */
const ordersPerStatement = (sent: { sql: string; args: string }[]) =>
  sent
    .filter(({ sql }) => /^\s*WITH consumed AS \(\s*INSERT INTO quotes/.test(sql))
    .map(({ args }) => (JSON.parse(args) as string[][])[0]!.length / 2);

describe('create statements under load', () => {
  it('writes the orders made together in fewer statements than orders', async ({ apps }) => {
    const statements: { sql: string; args: string }[] = [];
    const app = await apps({ freshDatabase: true, onQuery: (sql, args) => statements.push({ sql, args }) });
    try {
      const orders = await newOrders(app, 12);
      statements.length = 0;
      const outcomes = await insertAll(app, orders);
      expect(outcomes.map((o) => o.status === 'fulfilled' && o.value?.order.id)).toEqual(orders.map(({ order }) => order.id));
      const sent = ordersPerStatement(statements);
      expect(sent.length).toBeLessThan(orders.length);
      expect(Math.max(...sent)).toBeGreaterThan(1);
      expect(sent.reduce((a, b) => a + b, 0)).toBe(orders.length);
      // Every quote consumed by its own order, every order with both intents.
      for (const { order } of orders) {
        expect((await app.db.prisma.quote.findUniqueOrThrow({ where: { id: order.quoteId } })).consumedBy).toBe(order.id);
        expect(await app.db.prisma.intent.count({ where: { swapId: { in: [order.sourceSwapId, order.destinationSwapId] } } })).toBe(2);
      }
    } finally {
      await app.close();
    }
  });

  it('refuses only the order whose key is taken when it shared a statement, and writes the others', async ({ t }) => {
    const orders = await newOrders(t, 12);
    // The last two share a commitment: whichever goes first is written, the other refused.
    const [first, second] = orders.slice(-2);
    second!.order.commitmentHash = first!.order.commitmentHash;
    for (const intent of second!.intents) intent.commitmentHash = first!.order.commitmentHash;
    const outcomes = await insertAll(t, orders);
    const refused = outcomes.filter((o) => o.status === 'rejected');
    expect(refused).toHaveLength(1);
    expect((refused[0] as PromiseRejectedResult).reason).toBeInstanceOf(KeyTakenError);
    expect(((refused[0] as PromiseRejectedResult).reason as KeyTakenError).key).toBe('commitment');
    const written = await t.db.prisma.order.count({ where: { id: { in: orders.map(({ order }) => order.id) } } });
    expect(written).toBe(orders.length - 1);
  });

  it('gives a quote to one of two orders on it in the same statement; the other comes back null', async ({ apps }) => {
    const statements: { sql: string; args: string }[] = [];
    const t = await apps({ freshDatabase: true, onQuery: (sql, args) => statements.push({ sql, args }) });
    const orders = await newOrders(t, 12);
    const [first, second] = orders.slice(-2);
    second!.quote = first!.quote;
    second!.order.quoteId = first!.order.quoteId;
    statements.length = 0;
    const outcomes = await insertAll(t, orders);
    // In the statements they were sent in together: none failed and fell back to one order each (a quote twice
    // in one INSERT ... ON CONFLICT DO UPDATE fails the statement).
    const sent = ordersPerStatement(statements);
    expect(sent.reduce((a, b) => a + b, 0)).toBe(orders.length);
    expect(Math.max(...sent)).toBeGreaterThan(1);
    expect(outcomes.every((o) => o.status === 'fulfilled')).toBe(true);
    const values = outcomes.map((o) => (o as PromiseFulfilledResult<unknown>).value);
    expect(values.filter((v) => v === null)).toHaveLength(1);
    const consumedBy = (await t.db.prisma.quote.findUniqueOrThrow({ where: { id: first!.order.quoteId } })).consumedBy;
    expect([first!.order.id, second!.order.id]).toContain(consumedBy);
    expect(await t.db.prisma.order.count({ where: { quoteId: first!.order.quoteId } })).toBe(1);
    await t.close();
  });
});
