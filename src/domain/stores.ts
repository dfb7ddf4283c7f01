import type { Intent, Order, Prisma, Quote, RelayerClaim } from '../generated/prisma/client.ts';

/**
 * The stores the domain's rules read and write through (ports): the domain names what it needs, and
 * src/db implements it below Prisma Client (src/db/row-store.ts), wired by src/runtime.ts.
 */
export interface QuoteAndOrderStore {
  /** A stored quote: one an order consumed, or one made before quote ids were signed (src/domain/signed-quotes.ts). */
  quoteById(id: string): Promise<Quote | null>;
  /** The key quote ids are signed with, the same for every instance on the database. */
  signingKey(): Promise<Uint8Array>;
  /**
   * Stores the quote as consumed by the order, and the order with both intents, in one commit. Null when an
   * order had consumed the quote already (nothing is written then); throws KeyTakenError when a key that must
   * be unique is taken.
   */
  insertOrderConsumingQuote(
    quote: Quote,
    order: Prisma.OrderCreateManyInput,
    intents: [Prisma.IntentCreateManyInput, Prisma.IntentCreateManyInput],
  ): Promise<{ order: Order; intents: [Intent, Intent] } | null>;
  /** The fingerprint of the request that created the order (to tell a replay), or null without such an order. */
  requestHashOf(orderId: string): Promise<string | null>;
}

/** An order with both of its escrows' intents. */
export type OrderWithIntents = Order & { sourceIntent: Intent; destinationIntent: Intent };

/** What one escrow event changes (escrow-events.ts decides it; the store writes it, in this order). */
export interface EscrowEventWrite {
  /** The escrow's intent: the event's columns. */
  intent: Prisma.IntentUpdateInput;
  /** A claim revealed the secret: both intents of the order show it from now on. */
  revealed?: { commitment: string; updatedAt: Date };
  order: { stage: Order['stage']; completedAt: Date | null; updatedAt: Date };
  /** The webhook outbox row, committed with the change or not at all (webhook-events.ts). */
  outbox?: Prisma.WebhookEventCreateManyInput;
}

/** Escrow-event ingestion's store: one event applied atomically, one writer per order at a time. */
export interface EscrowEventStore {
  /**
   * In one transaction: locks the order holding the escrow `swapId` against every other writer, reads
   * it with both intents, and writes what `decide` returns for it (nothing for null; a throw writes
   * nothing and is rethrown). Null when no order holds that escrow.
   */
  applyLocked(
    swapId: string,
    decide: (order: OrderWithIntents) => EscrowEventWrite | null,
  ): Promise<{ order: OrderWithIntents; written: boolean } | null>;
}

/** Relayer claims, as a claim request reads and writes them (src/relayer/claims.ts). */
export interface ClaimsStore {
  /** The order with its destination intent and its claim, if any; null without such an order. */
  orderForClaim(orderId: string): Promise<(Order & { destinationIntent: Intent; relayerClaim: RelayerClaim | null }) | null>;
  /**
   * Queues the claim unless the order has one already (of concurrent identical requests one insert
   * wins), and returns the order's claim as stored.
   */
  queueOnce(claim: Prisma.RelayerClaimCreateManyInput): Promise<RelayerClaim>;
  byOrderId(orderId: string): Promise<RelayerClaim | null>;
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
