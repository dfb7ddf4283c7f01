import type { Intent, Order, Prisma, Quote } from '../generated/prisma/client.ts';

/**
 * The stores the domain's rules read and write through (ports): the domain names what it needs, and
 * src/db implements it below Prisma Client (src/db/row-store.ts), wired by src/runtime.ts.
 */
export interface QuoteAndOrderStore {
  quoteById(id: string): Promise<Quote | null>;
  insertQuote(quote: Prisma.QuoteCreateInput): Promise<Quote>;
  /**
   * Consumes the quote and stores the order with both intents, in one commit. Null when the quote was
   * no longer unconsumed (nothing is written then); throws KeyTakenError when a key that must be unique
   * is taken.
   */
  insertOrderConsumingQuote(
    order: Prisma.OrderCreateManyInput,
    intents: [Prisma.IntentCreateManyInput, Prisma.IntentCreateManyInput],
  ): Promise<{ order: Order; intents: [Intent, Intent] } | null>;
  /** The fingerprint of the request that created the order (to tell a replay), or null without such an order. */
  requestHashOf(orderId: string): Promise<string | null>;
}

/**
 * Another order holds a key that is unique across the order book: the quote (a lost race for it) or the
 * commitment (its hash, or a swap id derived from it). The store recognises its own unique indexes.
 */
export class KeyTakenError extends Error {
  constructor(readonly key: 'quote' | 'commitment') {
    super(`${key} is already used by another order`);
  }
}
