import { BadRequestError } from './errors.ts';
import type { FilterNames, OrderFilterInput } from './order-list.ts';
import type { Registry } from './registry/registry.ts';
import { txHashCandidates } from './registry/tx-hashes.ts';

/** A dashboard's watch list fits one request; a longer list is split by the client. */
export const MAX_IDS = 100;

const ORDER_ID = /^[0-9a-f]{64}$/;
const SWAP_ID = /^(?:0x)?[0-9a-fA-F]{64}$/;

/**
 * What the store resolves to order ids before it reads a page (src/db/order-lookups.ts): the orders of
 * a transaction or of a swap id are found through the intents and swap_keys, one indexed statement.
 */
export interface OrderLookup {
  /** The transaction hash in every spelling it may be stored under (registry/tx-hashes.ts). */
  txHashes?: string[];
  swapId?: string;
}

/** The lookup part of a filter, checked; undefined when the filter has none. */
export function orderLookup(registry: Registry, filter: OrderFilterInput, names: FilterNames): OrderLookup | undefined {
  const lookup: OrderLookup = {};
  if (filter.txHash != null) lookup.txHashes = parseTxHash(registry, filter.txHash, names.txHash);
  if (filter.swapId != null) lookup.swapId = parseSwapId(filter.swapId, names.swapId);
  return lookup.txHashes || lookup.swapId ? lookup : undefined;
}

function parseTxHash(registry: Registry, value: unknown, field: string): string[] {
  const { hashes, rules } = txHashCandidates(registry, typeof value === 'string' ? value.trim() : '');
  if (hashes.length === 0) throw new BadRequestError(`${field} must be a transaction hash: ${rules.join(', or ')}`);
  return hashes;
}

/** Swap ids are 32 bytes of hex, as escrow events name them: any letter case, 0x or not. */
function parseSwapId(value: unknown, field: string): string {
  const swapId = typeof value === 'string' ? value.trim() : '';
  if (!SWAP_ID.test(swapId)) throw new BadRequestError(`${field} must be a swap id (64 hex characters, optional 0x)`);
  return swapId.toLowerCase().replace(/^0x/, '');
}

/**
 * At most MAX_IDS ids. An id that cannot exist (not 64 hex characters) is simply absent from the
 * answer, as an unknown one is, and as GET /orders/{order_id} answers 404 for both alike; ids are
 * compared in lowercase, as that path compares them.
 */
export function parseOrderIds(value: unknown, field: string): string[] {
  const items = Array.isArray(value) ? value.map(String) : String(value).split(',');
  if (items.length > MAX_IDS) throw new BadRequestError(`${field} must list at most ${MAX_IDS} order ids`);
  const ids = items.map((item) => item.trim().toLowerCase()).filter((id) => ORDER_ID.test(id));
  return [...new Set(ids)];
}
