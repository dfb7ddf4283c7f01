import { describe, expect } from 'vitest';
import { it } from './support/app.ts';
import { makeQuote, orderBody } from './support/fixtures.ts';

/**
 * Amounts past 2^53 must come back digit for digit on every read path. A float anywhere on the way
 * (for example relations loaded through JSON aggregation, which turns NUMERIC into a JSON number)
 * rounds the low digits, and only such amounts show it.
 */
// The largest ETH amount the registry allows, less one: 21 digits, none of them round.
const SOURCE_AMOUNT = '199999999999999999999';
let destAmount: string;
let orderId: string;

it.beforeAll(async ({ t }) => {
  const quote = await makeQuote(t, { source: 'ethereum:eth', destination: 'arbitrum:eth', amount: SOURCE_AMOUNT });
  destAmount = quote.destination.amount;
  const created = await t.rest('POST', '/orders', orderBody(quote, {}, 'whale'));
  expect(created.status).toBe(201);
  orderId = created.body.result.order_id;
});

const INTENTS = `sourceIntent { amount } destinationIntent { amount }`;

describe('amounts beyond 2^53', () => {
  it('are test data a float cannot hold', () => {
    for (const amount of [SOURCE_AMOUNT, destAmount]) {
      expect(BigInt(amount)).toBeGreaterThan(BigInt(Number.MAX_SAFE_INTEGER));
      expect(BigInt(Number(amount)).toString()).not.toBe(amount);
    }
  });

  it('read back exactly through every REST read', async ({ t }) => {
    const one = (await t.rest('GET', `/orders/${orderId}`)).body.result;
    const byUser = (await t.rest('GET', '/orders/user/whale')).body.result.data[0];
    const listed = (await t.rest('GET', '/orders?asset=ethereum:eth')).body.result.data[0];
    for (const order of [one, byUser, listed]) {
      expect(order.source_intent.amount).toBe(SOURCE_AMOUNT);
      expect(order.destination_intent.amount).toBe(destAmount);
    }
  });

  it('read back exactly through every GraphQL read', async ({ t }) => {
    const reply = await t.gql(
      `query ($id: String!) {
        order(orderId: $id) { ${INTENTS} }
        orders(limit: 5) { data { ${INTENTS} } }
        ordersByUser(userId: "whale") { data { ${INTENTS} } }
        ordersConnection(first: 5) { edges { node { ${INTENTS} } } }
      }`,
      { id: orderId },
    );
    expect(reply.errors).toBeUndefined();
    const { order, orders, ordersByUser, ordersConnection } = reply.data;
    for (const o of [order, orders.data[0], ordersByUser.data[0], ordersConnection.edges[0].node]) {
      expect(o).toEqual({ sourceIntent: { amount: SOURCE_AMOUNT }, destinationIntent: { amount: destAmount } });
    }
  });
});
