import { createHash, randomBytes } from 'node:crypto';
import { getAddress } from 'viem';
import type { Json, TestApp } from './app.ts';

/** A user's own addresses: BIP-173's mainnet P2WPKH test vector, and an EIP-55 EVM address. */
export const USER_BTC = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';
export const USER_EVM = getAddress(`0x${'5a'.repeat(20)}`);

/** A fresh secret and its commitment hash, as a wallet makes them. */
export function newSecret(): { secret: string; commitmentHash: string } {
  const secret = randomBytes(32);
  return { secret: secret.toString('hex'), commitmentHash: createHash('sha256').update(secret).digest('hex') };
}

export interface QuoteRequest {
  source?: string;
  destination?: string;
  amount?: string;
}

export async function makeQuote(t: TestApp, q: QuoteRequest = {}): Promise<Json> {
  const reply = await t.rest('POST', '/quotes', {
    source: { asset: q.source ?? 'bitcoin:btc', amount: q.amount ?? '10000000' },
    destination: { asset: q.destination ?? 'ethereum:wbtc' },
  });
  if (reply.status !== 201) throw new Error(`quote failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.result;
}

const ADDRESSES: Record<string, string> = { bitcoin: USER_BTC };

/** The create-order body a client sends for a quote. */
export function orderBody(quote: Json, overrides: Record<string, unknown> = {}, userId = 'user-1') {
  const addressFor = (asset: string) => ADDRESSES[asset.split(':')[0]!] ?? USER_EVM;
  return {
    user_id: userId,
    quote_id: quote.quote_id,
    source: { asset: quote.source.asset, recipient: addressFor(quote.source.asset), amount: quote.source.amount },
    destination: {
      asset: quote.destination.asset,
      recipient: addressFor(quote.destination.asset),
      amount: quote.destination.amount,
    },
    commitment_hash: newSecret().commitmentHash,
    ...overrides,
  };
}

export async function makeOrder(t: TestApp, q: QuoteRequest = {}, userId = 'user-1'): Promise<Json> {
  const quote = await makeQuote(t, q);
  const reply = await t.rest('POST', '/orders', orderBody(quote, {}, userId));
  if (reply.status !== 201) throw new Error(`order failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.result;
}
