import { describe, expect } from 'vitest';
import { intentRead } from '../src/db/row-store.ts';
import type { Intent } from '../src/generated/prisma/client.ts';
import { restCreatedOrderJson } from '../src/rest/rendered-rows.ts';
import { it, type TestApp } from './support/app.ts';
import { escrowEvent, postEvent } from './support/events.ts';
import { makeQuote, orderBody } from './support/fixtures.ts';

/**
 * `POST /quotes` and `POST /orders` answer with JSON rendered from the rows the write returned, without running
 * their GraphQL documents (src/rest/rendered-rows.ts). Their answers must be the documents' to the byte: the
 * same keys in the same order, each value printed as GraphQL prints it. `GET /quotes/{id}` and
 * `GET /orders/{id}` run documents with the same fragments (QuoteFields, OrderFields), so a create's answer
 * and the read right after it must be the same text.
 */

const PAIRS = [
  { source: 'bitcoin:btc', destination: 'ethereum:wbtc', amount: '10000000' },
  { source: 'ethereum:wbtc', destination: 'bitcoin:btc', amount: '25000000' },
  { source: 'ethereum:usdc', destination: 'arbitrum:usdc', amount: '123456789' },
  { source: 'arbitrum:eth', destination: 'base:eth', amount: '1000000000000000001' },
];

/** A request's status and body as the bytes sent. */
async function raw(t: TestApp, method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const init: RequestInit = { method };
  if (body !== undefined) Object.assign(init, { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  const response = await t.app.fetch(`http://test${path}`, init);
  return { status: response.status, text: await response.text() };
}

const resultOf = (text: string) => JSON.parse(text).result;

describe('creates rendered from their rows', () => {
  for (const pair of PAIRS) {
    it(`answers a quote and its order as the documents do: ${pair.source} to ${pair.destination}`, async ({ t }) => {
      const quote = await raw(t, 'POST', '/quotes', {
        source: { asset: pair.source, amount: pair.amount },
        destination: { asset: pair.destination },
      });
      expect(quote.status).toBe(201);
      const quoteRead = await raw(t, 'GET', `/quotes/${resultOf(quote.text).quote_id}`);
      expect(quote.text).toBe(quoteRead.text);

      const order = await raw(t, 'POST', '/orders', orderBody(resultOf(quote.text), {}, 'rendered-rows'));
      expect(order.status).toBe(201);
      const orderRead = await raw(t, 'GET', `/orders/${resultOf(order.text).order_id}`);
      expect(order.text).toBe(orderRead.text);
      expect(resultOf(order.text).status).toBe('pending');
    });
  }

  it('answers an exact replay with the stored order, 200', async ({ t }) => {
    const body = orderBody(await makeQuote(t), {}, 'rendered-rows');
    const first = await raw(t, 'POST', '/orders', body);
    const again = await raw(t, 'POST', '/orders', body);
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.text).toBe(first.text);
  });

  it('prints escrow facts as the order document does: times, block numbers, transaction hashes', async ({ t }) => {
    const order = resultOf((await raw(t, 'POST', '/orders', orderBody(await makeQuote(t), {}, 'rendered-rows'))).text);
    expect((await postEvent(t, order.source_intent.swap_id, escrowEvent('create', 9_007_199_254))).status).toBe(200);
    expect((await postEvent(t, order.destination_intent.swap_id, escrowEvent('create', 21_000_123))).status).toBe(200);
    const read = await raw(t, 'GET', `/orders/${order.order_id}`);
    expect(resultOf(read.text).status).toBe('destination_created');

    const [stored] = await t.db.rows.ordersById([order.order_id], true);
    const intents = [intentRead(stored!, stored!.sourceSwapId), intentRead(stored!, stored!.destinationSwapId)] as Intent[];
    expect(`{"status":"Success","result":${restCreatedOrderJson(stored!, intents, t.clock.now())}}`).toBe(read.text);
  });
});
