import { Prisma, type Quote } from '../generated/prisma/client.ts';
import type { z } from 'zod';
import { amount } from './amounts.ts';
import type { DomainDeps } from './deps.ts';
import { NotFoundError, QuoteExpiredError, UnprocessableError } from './errors.ts';
import { assetId, object, toSeconds } from './input.ts';
import { destinationAmount } from './prices.ts';
import type { Asset, Chain } from './registry/registry.ts';
import type { QuoteAndOrderStore } from './stores.ts';
import { MAX_QUOTE_ID_LENGTH, maybeSigned, type QuoteTerms, readQuoteId, signQuoteId, solverFingerprint } from './signed-quotes.ts';

/** A quote request: shape and formats (400); the registry's word on the pair comes after (422). */
export const CreateQuoteSchema = object({
  source: object({ asset: assetId, amount }),
  destination: object({ asset: assetId }),
});

export type CreateQuoteCommand = z.output<typeof CreateQuoteSchema>;

export interface ListedPair {
  sourceAsset: Asset;
  sourceChain: Chain;
  destAsset: Asset;
  destChain: Chain;
}

/** The registry's word on a pair (422): both listed, distinct, and on the same kind of network. */
export function resolvePair(deps: Pick<DomainDeps, 'registry'>, sourceId: string, destId: string): ListedPair {
  const sourceAsset = deps.registry.asset(sourceId);
  if (!sourceAsset) throw new UnprocessableError(`source.asset ${sourceId} is not a listed asset (see GET /assets)`);
  const destAsset = deps.registry.asset(destId);
  if (!destAsset) throw new UnprocessableError(`destination.asset ${destId} is not a listed asset (see GET /assets)`);
  if (sourceAsset.id === destAsset.id) throw new UnprocessableError('destination.asset must differ from source.asset');
  const sourceChain = deps.registry.chain(sourceAsset.chain);
  const destChain = deps.registry.chain(destAsset.chain);
  if (!sourceChain || !destChain) throw new Error(`registry lists an asset on an unknown chain`);
  if (sourceChain.network !== destChain.network) {
    throw new UnprocessableError(
      `cannot swap between ${sourceChain.network} and ${destChain.network}: source.asset and destination.asset must be on the same network`,
    );
  }
  return { sourceAsset, sourceChain, destAsset, destChain };
}

/** The store with the configured signing key in place of the database's (QUOTE_SIGNING_KEY), when there is one. */
export function signingWith<Store extends QuoteAndOrderStore>(store: Store, key: Uint8Array | undefined): Store {
  if (!key) return store;
  return { ...store, signingKey: () => Promise.resolve(key) };
}

/** Prices and signs a quote: nothing is stored until an order consumes it (src/domain/signed-quotes.ts). */
export async function createQuote(
  deps: Pick<DomainDeps, 'registry' | 'prices' | 'config' | 'now' | 'quotes'>,
  command: CreateQuoteCommand,
): Promise<Quote> {
  const terms = await priceQuote(deps, command);
  const id = signQuoteId(terms, await deps.quotes.signingKey());
  // Only a registry of very long asset ids and prices could make one longer.
  if (id.length > MAX_QUOTE_ID_LENGTH)
    throw new UnprocessableError(`the quote's terms do not fit in a quote id of ${MAX_QUOTE_ID_LENGTH} characters`);
  return quoteRow(id, terms);
}

/** Every check and the price of a quote: its terms, not yet signed (the bulk seed signs and stores them itself). */
export async function priceQuote(
  deps: Pick<DomainDeps, 'registry' | 'prices' | 'config' | 'now'>,
  command: CreateQuoteCommand,
): Promise<QuoteTerms> {
  const sourceAmount = command.source.amount;
  const pair = resolvePair(deps, command.source.asset, command.destination.asset);
  const { sourceAsset, destAsset } = pair;
  const min = BigInt(sourceAsset.min_amount);
  const max = BigInt(sourceAsset.max_amount);
  if (sourceAmount < min || sourceAmount > max) {
    throw new UnprocessableError(
      `source.amount must be between ${sourceAsset.min_amount} and ${sourceAsset.max_amount} base units of ${sourceAsset.id}`,
    );
  }
  const [sourcePriceUsd, destPriceUsd] = await Promise.all([deps.prices.priceUsd(sourceAsset), deps.prices.priceUsd(destAsset)]);
  const feeBips = deps.registry.feeBips;
  const destAmount = destinationAmount({
    sourceAmount,
    sourceDecimals: sourceAsset.decimals,
    destDecimals: destAsset.decimals,
    sourcePriceUsd,
    destPriceUsd,
    feeBips,
  });
  if (destAmount <= 0n) throw new UnprocessableError('source.amount is too small: the destination amount rounds down to zero');

  const createdAt = toSeconds(deps.now());
  return {
    sourceAsset: sourceAsset.id,
    sourceAmount,
    destAsset: destAsset.id,
    destAmount,
    sourceTokenPrice: sourcePriceUsd,
    destTokenPrice: destPriceUsd,
    feeBips,
    solver: pairSolver(pair),
    createdAt,
    expiresAt: new Date(createdAt.getTime() + deps.config.quoteTtlSeconds * 1000),
  };
}

/** The solver's address on each chain of the pair, keyed by chain id. */
const pairSolver = (pair: ListedPair): Record<string, string> => ({
  [pair.sourceChain.id]: pair.sourceChain.solver,
  [pair.destChain.id]: pair.destChain.solver,
});

/** A quote as the API shows it and the order stores it, from its id and terms; not consumed. */
export function quoteRow(id: string, terms: QuoteTerms): Quote {
  return {
    id,
    sourceAsset: terms.sourceAsset,
    sourceAmount: new Prisma.Decimal(terms.sourceAmount.toString()),
    destAsset: terms.destAsset,
    destAmount: new Prisma.Decimal(terms.destAmount.toString()),
    sourceTokenPrice: new Prisma.Decimal(terms.sourceTokenPrice),
    destTokenPrice: new Prisma.Decimal(terms.destTokenPrice),
    feeBips: terms.feeBips,
    solver: terms.solver,
    createdAt: terms.createdAt,
    expiresAt: terms.expiresAt,
    consumedBy: null,
  };
}

/**
 * The quote a signed id carries, with the registry's solver addresses for its pair; 'stale' when the registry
 * no longer lists its assets or those addresses (the quote cannot be settled as made); null when `id` is not
 * an id this database's key signed.
 */
async function signedQuote(deps: Pick<DomainDeps, 'registry' | 'quotes'>, id: string): Promise<Quote | 'stale' | null> {
  // An id of the stored kind needs no key.
  if (!maybeSigned(id)) return null;
  const terms = readQuoteId(id, await deps.quotes.signingKey());
  if (!terms) return null;
  const sourceAsset = deps.registry.asset(terms.sourceAsset);
  const destAsset = deps.registry.asset(terms.destAsset);
  const sourceChain = sourceAsset && deps.registry.chain(sourceAsset.chain);
  const destChain = destAsset && deps.registry.chain(destAsset.chain);
  if (!sourceAsset || !destAsset || !sourceChain || !destChain) return 'stale';
  const solver = pairSolver({ sourceAsset, sourceChain, destAsset, destChain });
  if (!solverFingerprint(solver).equals(terms.solverFingerprint)) return 'stale';
  return quoteRow(id, { ...terms, solver });
}

const staleQuote = (id: string) =>
  new QuoteExpiredError(`quote_id ${id} was made for assets or solver addresses the registry no longer lists: get a new quote`);

/**
 * The quote an order on `id` starts from: one that is live is read from its id alone (no round trip; whether it
 * is consumed is decided by the order's own statement); one that has expired, or that the registry no longer
 * backs, is looked up among the stored ones first, since an order may have consumed it (an exact replay then
 * answers with that order). Quotes stored before ids were signed are read from the table. Null: no such quote.
 */
export async function quoteToConsume(deps: Pick<DomainDeps, 'registry' | 'quotes'>, id: string, now: Date): Promise<Quote | null> {
  const signed = await signedQuote(deps, id);
  if (signed === null) return deps.quotes.quoteById(id);
  if (signed !== 'stale' && signed.expiresAt > now) return signed;
  const stored = await deps.quotes.quoteById(id);
  if (stored) return stored;
  if (signed === 'stale') throw staleQuote(id);
  return signed;
}

/** Signed ids run to about 130 characters (some 300 at the largest amounts); stored ones, from before, to 26. */
const QUOTE_ID = new RegExp(`^[A-Za-z0-9_-]{1,${MAX_QUOTE_ID_LENGTH}}$`);

export function isPossibleQuoteId(id: string): boolean {
  return QUOTE_ID.test(id);
}

/** A quote by id: as stored once consumed (or made before ids were signed), else as its signed id carries it. */
export async function findQuote(deps: Pick<DomainDeps, 'registry' | 'quotes'>, quoteId: string): Promise<Quote> {
  if (!isPossibleQuoteId(quoteId)) throw new NotFoundError('quote not found');
  const quote = (await deps.quotes.quoteById(quoteId)) ?? (await signedQuote(deps, quoteId));
  if (quote === 'stale') throw staleQuote(quoteId);
  if (!quote) throw new NotFoundError(`quote ${quoteId} not found`);
  return quote;
}
