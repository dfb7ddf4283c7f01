import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ACCOUNTS, testRegistry } from './nodes.ts';
import type { Json } from '../../support/app.ts';

/** Writes a test registry to a temporary file for ASSETS_FILE. */
export function registryFile(chainIds: { a: number; b: number }, confirmations = 2): string {
  const dir = mkdtempSync(join(tmpdir(), 'obg-evm-'));
  const file = join(dir, 'registry.json');
  writeFileSync(file, JSON.stringify(testRegistry(chainIds, confirmations)));
  return file;
}

export function newSecret(): { secret: string; commitmentHash: string } {
  const secret = randomBytes(32);
  return { secret: secret.toString('hex'), commitmentHash: createHash('sha256').update(secret).digest('hex') };
}

export const ONE_ETH = 10n ** 18n;

type Call = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: Json }>;

/**
 * Quote and order from evm_a:eth to evm_b:eth for Hardhat's user account, as a wallet makes them:
 * the user holds the secret and sends only its hash.
 */
export async function placeOrder(call: Call, amount = ONE_ETH, userId = 'evm-user') {
  const { secret, commitmentHash } = newSecret();
  const quote = await call('POST', '/quotes', {
    source: { asset: 'evm_a:eth', amount: amount.toString() },
    destination: { asset: 'evm_b:eth' },
  });
  if (quote.status !== 201) throw new Error(`quote: ${quote.status} ${JSON.stringify(quote.body)}`);
  const q = quote.body.result;
  const user = ACCOUNTS.user.address;
  const order = await call('POST', '/orders', {
    user_id: userId,
    quote_id: q.quote_id,
    source: { asset: q.source.asset, recipient: user, amount: q.source.amount },
    destination: { asset: q.destination.asset, recipient: user, amount: q.destination.amount },
    commitment_hash: commitmentHash,
  });
  if (order.status !== 201) throw new Error(`order: ${order.status} ${JSON.stringify(order.body)}`);
  return { order: order.body.result, orderId: order.body.result.order_id as string, secret, commitmentHash };
}
