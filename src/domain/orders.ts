import { createHash, randomBytes } from 'node:crypto';
import type { Intent, Order, Prisma, Quote } from '../generated/prisma/client.ts';
import { z } from 'zod';
import { addressRule, isValidAddress, isZeroAddress, normalizeAddress } from './addresses.ts';
import { amount } from './amounts.ts';
import type { DomainDeps } from './deps.ts';
import { ConflictError, NotFoundError, QuoteConsumedError, QuoteExpiredError, QuoteMismatchError } from './errors.ts';
import { assetId, hex32, isoSeconds, object, parseField, text, toSeconds, userId } from './input.ts';
import { usdValue } from './prices.ts';
import { quoteToConsume, resolvePair, type ListedPair } from './quotes.ts';
import { MAX_QUOTE_ID_LENGTH } from './signed-quotes.ts';
import { KeyTakenError } from './stores.ts';
import type { Registry } from './registry/registry.ts';

const orderLeg = object({
  asset: assetId,
  recipient: text(128),
  amount,
});

/**
 * A create-order request: shape and formats (400), each with its own message. The quote checks
 * (404, 410, 409) and the match with the quote (422) come after, in createOrder.
 */
export const CreateOrderSchema = object({
  userId,
  quoteId: text(MAX_QUOTE_ID_LENGTH),
  source: orderLeg,
  destination: orderLeg,
  commitmentHash: hex32,
});

/** A create-order request in canonical form: lowercase hashes and asset ids, normalised recipients. */
export type CreateOrderCommand = z.output<typeof CreateOrderSchema>;

/**
 * CreateOrderInput with the recipients checked against the chain of their asset and normalised,
 * when the registry knows the asset; an unlisted asset is the registry's 422, reported after the
 * quote checks like every other mismatch.
 */
export function createOrderSchemaFor(registry: Registry) {
  // One per registry: building a zod schema costs more than parsing with it, on every create.
  let schema = schemasByRegistry.get(registry);
  if (!schema) schemasByRegistry.set(registry, (schema = buildCreateOrderSchema(registry)));
  return schema;
}

const schemasByRegistry = new WeakMap<Registry, ReturnType<typeof buildCreateOrderSchema>>();

function buildCreateOrderSchema(registry: Registry) {
  return CreateOrderSchema.transform((command, ctx) => {
    for (const side of ['source', 'destination'] as const) {
      const leg = command[side];
      const chain = registry.chain(registry.asset(leg.asset)?.chain ?? '');
      if (!chain) continue;
      if (!isValidAddress(chain, leg.recipient)) {
        ctx.issues.push({ code: 'custom', path: [side, 'recipient'], message: addressRule(chain), input: leg.recipient });
      } else if (isZeroAddress(chain, leg.recipient)) {
        const message = 'must not be the zero address: nobody holds its key, so funds sent there are lost';
        ctx.issues.push({ code: 'custom', path: [side, 'recipient'], message, input: leg.recipient });
      } else leg.recipient = normalizeAddress(chain, leg.recipient);
    }
    return command;
  });
}

/**
 * Fingerprint of a request, to tell an exact replay (200, same order) from a different one (409):
 * the whole parsed command, so a field added to CreateOrderSchema is in it with nothing else to change.
 */
export function requestFingerprint(request: CreateOrderCommand): string {
  return fingerprintOf(CreateOrderSchema, request);
}

/**
 * sha256 of a parsed value walked in its schema's field order: an object becomes the array of its
 * fields' values (absent optional fields left out, so adding one keeps the fingerprints already
 * stored), an amount its decimal string.
 */
export function fingerprintOf(schema: z.ZodType, value: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(canonical(schema, value)))
    .digest('hex');
}

function canonical(schema: z.ZodType, value: unknown): unknown {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) return canonical(schema.unwrap() as z.ZodType, value);
  if (schema instanceof z.ZodObject && typeof value === 'object' && value !== null) {
    const fields = value as Record<string, unknown>;
    return Object.entries(schema.shape as Record<string, z.ZodType>)
      .filter(([key]) => fields[key] !== undefined)
      .map(([key, field]) => canonical(field, fields[key]));
  }
  return typeof value === 'bigint' ? value.toString() : value;
}

/**
 * The escrow id of one intent, computable by a chain watcher from the escrow's own parameters:
 * sha256 over a canonical JSON array of them, as 64 lowercase hex characters.
 */
export function deriveSwapId(intent: {
  chain: string;
  tokenAddress: string;
  creator: string;
  recipient: string;
  amount: bigint;
  commitmentHash: string;
  cancelAfter: bigint;
}): string {
  const canonical = JSON.stringify([
    intent.chain,
    intent.tokenAddress.toLowerCase(),
    intent.creator.toLowerCase(),
    intent.recipient.toLowerCase(),
    intent.amount.toString(),
    intent.commitmentHash,
    intent.cancelAfter.toString(),
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}

export interface CreatedOrder {
  orderId: string;
  /** True when this was an exact replay of the request that consumed the quote. */
  replayed: boolean;
  /** The rows as the INSERTs returned them, for answering without reading them back (not on a replay). */
  stored?: { order: Order; intents: Intent[] };
}

/**
 * Creates an order from a quote, consuming the quote exactly once.
 * Order of checks: shape (400), quote (404, 410, 409), match (422).
 */
export async function createOrder(deps: DomainDeps, request: CreateOrderCommand): Promise<CreatedOrder> {
  const fingerprint = requestFingerprint(request);
  // A lost race for the quote finds it consumed after all; the second pass then sees the winner's
  // order and answers as a replay or a 409.
  for (let attempt = 0; ; attempt++) {
    try {
      const created = await createOrderOnce(deps, request, fingerprint, attempt === 0);
      if (created) {
        if (!created.replayed) deps.events.orderChanged({ orderId: created.orderId, userId: request.userId });
        return created;
      }
      if (attempt > 0) throw new Error(`quote ${request.quoteId} could not be consumed, nor found consumed`);
    } catch (error) {
      if (!(error instanceof KeyTakenError)) throw error;
      if (attempt === 0 && error.key === 'quote') continue;
      if (error.key === 'commitment') throw commitmentReused();
      throw error;
    }
  }
}

const commitmentReused = () => new ConflictError('commitment_hash is already used by another order: use a fresh secret');

/** The order, a replay's answer, or null when another request consumed the quote meanwhile. */
async function createOrderOnce(
  deps: DomainDeps,
  request: CreateOrderCommand,
  fingerprint: string,
  first: boolean,
): Promise<CreatedOrder | null> {
  // Every check reads the quote unlocked: all it checks (pair, amounts, expiry) never changes, and
  // its consumption is decided by the write below. The first pass reads a live quote from its signed id;
  // a second pass (the write found it consumed) reads who consumed it.
  // The clock's reading to the millisecond for the order id, to the second for what is stored.
  const readAt = deps.now();
  const now = toSeconds(readAt);
  const quote = first ? await quoteToConsume(deps, request.quoteId, now) : await deps.quotes.quoteById(request.quoteId);
  if (!quote) throw new NotFoundError(`quote_id ${request.quoteId} does not name a quote`);
  if (quote.consumedBy) return answerConsumed(deps, request, quote.consumedBy, fingerprint);
  if (quote.expiresAt <= now) {
    throw new QuoteExpiredError(`quote_id ${request.quoteId} expired at ${isoSeconds(quote.expiresAt)}`);
  }
  let pair: ListedPair;
  try {
    pair = matchQuote(deps, request, quote);
  } catch (error) {
    // A live quote read from its id alone may be consumed already, and on a consumed quote a different request
    // is a 409 whatever it differs in (the contract's order of checks): only a mismatch pays for the read.
    const stored = error instanceof QuoteMismatchError ? await deps.quotes.quoteById(request.quoteId) : null;
    if (stored?.consumedBy) return answerConsumed(deps, request, stored.consumedBy, fingerprint);
    throw error;
  }
  const orderId = newOrderId(readAt);
  const { order, intents } = buildOrder(deps, request, quote, pair, orderId, fingerprint, now);
  // One statement stores the quote as consumed (only if no order has: of concurrent consumers exactly one
  // inserts it, the others wait for its commit, then find it taken) and writes both intents and the
  // order, or writes nothing. A reused commitment_hash fails a unique index: createOrder answers 409.
  const stored = await deps.quotes.insertOrderConsumingQuote(quote, order, intents);
  return stored && { orderId, replayed: false, stored };
}

/**
 * A new order id: 64 lowercase hex characters (opaque to clients, as the contract has it), the first 12 the
 * time it was made in milliseconds, the other 52 random (208 bits). Ids made later sort after, so in each
 * index keyed by the order id (the order's month, order_keys, the quote's consumer, swap_keys) a new order
 * lands beside the last one, on a page already in memory, rather than on a random page of a large index: a
 * random page must be read, dirtied and written back, and after each checkpoint logged whole to the WAL.
 */
export function newOrderId(at: Date): string {
  return at.getTime().toString(16).padStart(12, '0').slice(-12) + randomBytes(26).toString('hex');
}

/** The answer on a consumed quote: the order, when this very request consumed it (a replay); else a 409. */
async function answerConsumed(deps: DomainDeps, request: CreateOrderCommand, orderId: string, fingerprint: string): Promise<CreatedOrder> {
  if ((await deps.quotes.requestHashOf(orderId)) === fingerprint) return { orderId, replayed: true };
  throw new QuoteConsumedError(`quote_id ${request.quoteId} was already used by a different order request`);
}

/** The request must be the quote's own pair and amounts (422). */
function matchQuote(deps: DomainDeps, request: CreateOrderCommand, quote: Quote): ListedPair {
  if (request.source.asset !== quote.sourceAsset) {
    throw new QuoteMismatchError(`source.asset must be the quote's source asset ${quote.sourceAsset}`);
  }
  if (request.destination.asset !== quote.destAsset) {
    throw new QuoteMismatchError(`destination.asset must be the quote's destination asset ${quote.destAsset}`);
  }
  const quotedSource = quote.sourceAmount.toFixed();
  if (request.source.amount.toString() !== quotedSource) {
    throw new QuoteMismatchError(`source.amount must equal the quoted amount ${quotedSource}`);
  }
  const quotedDest = quote.destAmount.toFixed();
  if (request.destination.amount.toString() !== quotedDest) {
    throw new QuoteMismatchError(`destination.amount must equal the quoted amount ${quotedDest}`);
  }
  return resolvePair(deps, quote.sourceAsset, quote.destAsset);
}

/** The order row and both intent rows, as createOrder stores them (the bulk seed stores them itself). */
export function buildOrder(
  deps: Pick<DomainDeps, 'config'>,
  request: CreateOrderCommand,
  quote: Quote,
  pair: ListedPair,
  orderId: string,
  fingerprint: string,
  now: Date,
): { order: Prisma.OrderCreateManyInput; intents: [source: Prisma.IntentCreateManyInput, destination: Prisma.IntentCreateManyInput] } {
  const nowSecs = BigInt(now.getTime() / 1000);
  const sourceCancelAfter = nowSecs + BigInt(pair.sourceChain.source_timelock_secs);
  const destCancelAfter = nowSecs + BigInt(pair.destChain.destination_timelock_secs);
  if (destCancelAfter >= sourceCancelAfter) {
    // The solver must be able to refund before the user can: otherwise the user could take both sides.
    throw new Error(`registry timelocks for ${pair.sourceChain.id} -> ${pair.destChain.id} are unsafe`);
  }
  const solver = quote.solver as Record<string, string>;
  const sourceSolver = solver[pair.sourceChain.id];
  const destSolver = solver[pair.destChain.id];
  if (!sourceSolver || !destSolver) throw new Error(`quote ${quote.id} has no solver for its chains`);

  const sourceIntent = intentData('source', pair.sourceChain.id, pair.sourceAsset, {
    creator: request.source.recipient,
    recipient: sourceSolver,
    amount: request.source.amount,
    commitmentHash: request.commitmentHash,
    cancelAfter: sourceCancelAfter,
    registryAddress: pair.sourceChain.registry_address,
    now,
  });
  const destinationIntent = intentData('destination', pair.destChain.id, pair.destAsset, {
    creator: destSolver,
    recipient: request.destination.recipient,
    amount: request.destination.amount,
    commitmentHash: request.commitmentHash,
    cancelAfter: destCancelAfter,
    registryAddress: pair.destChain.registry_address,
    now,
  });
  const order: Prisma.OrderCreateManyInput = {
    id: orderId,
    userId: request.userId,
    quoteId: quote.id,
    sourceTokenPrice: quote.sourceTokenPrice,
    destTokenPrice: quote.destTokenPrice,
    feeBips: quote.feeBips,
    commitmentHash: request.commitmentHash,
    requestHash: fingerprint,
    deadlineAt: new Date(now.getTime() + deps.config.orderDeadlineSeconds * 1000),
    destExpiresAt: new Date(Number(destCancelAfter) * 1000),
    sourceChain: pair.sourceChain.id,
    destChain: pair.destChain.id,
    sourceAsset: pair.sourceAsset.id,
    destAsset: pair.destAsset.id,
    volumeUsd: usdValue(request.source.amount, pair.sourceAsset.decimals, quote.sourceTokenPrice.toFixed()),
    sourceSwapId: sourceIntent.swapId,
    destinationSwapId: destinationIntent.swapId,
    createdAt: now,
    updatedAt: now,
  };
  return { order, intents: [sourceIntent, destinationIntent] };
}

function intentData(
  side: 'source' | 'destination',
  chain: string,
  asset: { id: string; token_address: string },
  fields: {
    creator: string;
    recipient: string;
    amount: bigint;
    commitmentHash: string;
    cancelAfter: bigint;
    registryAddress: string | null;
    now: Date;
  },
): Prisma.IntentCreateManyInput {
  const swapId = deriveSwapId({ chain, tokenAddress: asset.token_address, ...fields });
  return {
    swapId,
    side,
    chain,
    asset: asset.id,
    tokenAddress: asset.token_address,
    creator: fields.creator,
    recipient: fields.recipient,
    amount: fields.amount.toString(),
    commitmentHash: fields.commitmentHash,
    cancelAfter: fields.cancelAfter,
    registryAddress: fields.registryAddress,
    createdAt: fields.now,
    updatedAt: fields.now,
  };
}

const ORDER_ID = /^[0-9a-f]{64}$/;

/** An id that cannot exist is simply not found. */
export function orderIdOrNotFound(orderId: string): string {
  const id = orderId.toLowerCase();
  // An impossible id is not echoed back: it may hold anything, control characters included.
  if (!ORDER_ID.test(id)) throw new NotFoundError('order not found');
  return id;
}

/** User ids are opaque strings chosen by clients: printable text up to 128 characters (src/domain/input.ts). */
export function parseUserId(value: unknown, field = 'userId'): string {
  return parseField(CreateOrderSchema.shape.userId, value, field);
}

export function assertFound<T>(order: T | null, orderId: string): T {
  if (!order) throw new NotFoundError(`order ${orderId} not found`);
  return order;
}
