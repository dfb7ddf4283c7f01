import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Quote ids that carry their quote, signed (README, Choices the contract left open: Quotes). Making a quote
 * writes nothing: its terms travel in its id, under an HMAC with the database's signing key, so any instance
 * on that database can check an id it is handed and read the terms back. The order that consumes a quote
 * stores it (src/db/row-store.ts), and that insert, keyed by the id, is what lets it be consumed once.
 *
 * The id is `q_` and the base64url of:
 *
 *   version, 2 (1 byte) | created_at, UNIX seconds (4) | nonce (8) | lifetime in seconds (4) | fee_bips (2)
 *   | solver fingerprint (4) | source asset, destination asset (each: length byte, UTF-8)
 *   | source amount, destination amount (each: length byte, big-endian bytes)
 *   | source price, destination price (each: length byte, the decimal string)
 *   | HMAC-SHA256 of all the above, first 16 bytes
 *
 * The time leads: ids made in the same second share their first characters, so the consumed quotes' keys
 * (quotes, order_keys) go in beside each other, on pages already in memory, not on random pages of large
 * indexes (as order ids: src/domain/orders.ts, newOrderId). Version 1 had the nonce first; its ids are still
 * read, for a quote made before an upgrade and used after it.
 *
 * The solver addresses are not carried, only a fingerprint of them: they come from the registry, and a quote
 * made for addresses the registry no longer lists is refused rather than settled with others.
 */

const VERSION = 2;
/** The first layout: the nonce before the time (above). */
const NONCE_FIRST = 1;
const NONCE_BYTES = 8;
const MAC_BYTES = 16;
const PREFIX = 'q_';
/** The longest quote id accepted anywhere (an order's quote_id, GET /quotes/{quote_id}). */
export const MAX_QUOTE_ID_LENGTH = 512;

/** A quote's terms: everything its id carries but the solver addresses (only their fingerprint). */
export interface QuoteTerms {
  sourceAsset: string;
  sourceAmount: bigint;
  destAsset: string;
  destAmount: bigint;
  /** USD prices, positive decimal strings. */
  sourceTokenPrice: string;
  destTokenPrice: string;
  feeBips: number;
  createdAt: Date;
  expiresAt: Date;
  /** The solver's address on each chain of the pair, keyed by chain id. */
  solver: Record<string, string>;
}

/** The terms read back from an id: the solver fingerprint stands in for the addresses. */
export type SignedTerms = Omit<QuoteTerms, 'solver'> & { solverFingerprint: Buffer };

/** What identifies a pair's solver addresses in an id: 4 bytes of sha256 over them in key order. */
export function solverFingerprint(solver: Record<string, string>): Buffer {
  const canonical = JSON.stringify(Object.entries(solver).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return createHash('sha256').update(canonical).digest().subarray(0, 4);
}

/** A new quote id for `terms`, signed with `key`; two ids for the same terms differ (the nonce). */
export function signQuoteId(terms: QuoteTerms, key: Uint8Array): string {
  const created = Math.floor(terms.createdAt.getTime() / 1000);
  const time = Buffer.alloc(5);
  time[0] = VERSION;
  time.writeUInt32BE(created, 1);
  const fixed = Buffer.alloc(6);
  fixed.writeUInt32BE(Math.floor(terms.expiresAt.getTime() / 1000) - created, 0);
  fixed.writeUInt16BE(terms.feeBips, 4);
  const parts: Buffer[] = [time, randomBytes(NONCE_BYTES), fixed, solverFingerprint(terms.solver)];
  for (const text of [terms.sourceAsset, terms.destAsset]) parts.push(withLength(Buffer.from(text, 'utf8')));
  for (const amount of [terms.sourceAmount, terms.destAmount]) parts.push(withLength(unsignedBytes(amount)));
  for (const price of [terms.sourceTokenPrice, terms.destTokenPrice]) parts.push(withLength(Buffer.from(price, 'ascii')));
  const payload = Buffer.concat(parts);
  return PREFIX + Buffer.concat([payload, mac(payload, key)]).toString('base64url');
}

/**
 * The terms of an id this key signed, or null for any other text (a stored quote's id, a made-up or altered
 * one). Only the exact text that was issued is accepted: base64url can spell the same bytes more than one
 * way, and the id is the key a quote is consumed under.
 */
export function readQuoteId(id: string, key: Uint8Array): SignedTerms | null {
  if (!maybeSigned(id)) return null;
  const bytes = Buffer.from(id.slice(PREFIX.length), 'base64url');
  if (bytes.length < MIN_BYTES || (bytes[0] !== VERSION && bytes[0] !== NONCE_FIRST)) return null;
  if (PREFIX + bytes.toString('base64url') !== id) return null;
  const payload = bytes.subarray(0, bytes.length - MAC_BYTES);
  const expected = mac(payload, key);
  if (!timingSafeEqual(expected, bytes.subarray(bytes.length - MAC_BYTES))) return null;
  return parsePayload(payload);
}

function parsePayload(payload: Buffer): SignedTerms | null {
  // The two layouts differ only in the order of the time and the nonce.
  const created = payload.readUInt32BE(payload[0] === NONCE_FIRST ? 1 + NONCE_BYTES : 1);
  let at = 1 + NONCE_BYTES + 4;
  const lifetime = payload.readUInt32BE(at);
  const feeBips = payload.readUInt16BE(at + 4);
  const fingerprint = payload.subarray(at + 6, at + 10);
  at += 10;
  const fields: Buffer[] = [];
  for (let i = 0; i < 6; i++) {
    const length = payload[at];
    if (length === undefined || at + 1 + length > payload.length) return null;
    fields.push(payload.subarray(at + 1, at + 1 + length));
    at += 1 + length;
  }
  if (at !== payload.length) return null;
  const [sourceAsset, destAsset, sourceAmount, destAmount, sourcePrice, destPrice] = fields as [
    Buffer,
    Buffer,
    Buffer,
    Buffer,
    Buffer,
    Buffer,
  ];
  return {
    sourceAsset: sourceAsset.toString('utf8'),
    destAsset: destAsset.toString('utf8'),
    sourceAmount: fromUnsignedBytes(sourceAmount),
    destAmount: fromUnsignedBytes(destAmount),
    sourceTokenPrice: sourcePrice.toString('ascii'),
    destTokenPrice: destPrice.toString('ascii'),
    feeBips,
    createdAt: new Date(created * 1000),
    expiresAt: new Date((created + lifetime) * 1000),
    solverFingerprint: Buffer.from(fingerprint),
  };
}

/** The fixed fields, six empty ones and the signature: no signed id is shorter. */
const MIN_BYTES = 1 + NONCE_BYTES + 14 + 6 + MAC_BYTES;

/** Whether `id` could be a signed id at all (its prefix and length), before any key is needed. */
export const maybeSigned = (id: string): boolean => id.startsWith(PREFIX) && id.length >= PREFIX.length + Math.ceil((MIN_BYTES * 4) / 3);

const mac = (payload: Buffer, key: Uint8Array) => createHmac('sha256', key).update(payload).digest().subarray(0, MAC_BYTES);

function withLength(bytes: Buffer): Buffer {
  if (bytes.length > 255) throw new RangeError('a quote field is longer than 255 bytes');
  return Buffer.concat([Buffer.from([bytes.length]), bytes]);
}

/** A non-negative integer as its shortest big-endian bytes (zero is no bytes). */
function unsignedBytes(value: bigint): Buffer {
  if (value < 0n) throw new RangeError('a quote amount must not be negative');
  if (value === 0n) return Buffer.alloc(0);
  const hex = value.toString(16);
  return Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
}

const fromUnsignedBytes = (bytes: Buffer): bigint => (bytes.length === 0 ? 0n : BigInt(`0x${bytes.toString('hex')}`));
