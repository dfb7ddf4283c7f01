import { randomBytes } from 'node:crypto';
import type { Prisma, Quote } from '../generated/prisma/client.ts';
import type { z } from 'zod';
import { amount } from './amounts.ts';
import type { DomainDeps } from './deps.ts';
import { NotFoundError, UnprocessableError } from './errors.ts';
import { assetId, object, toSeconds } from './input.ts';
import { destinationAmount } from './prices.ts';
import type { Asset, Chain } from './registry/registry.ts';

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

export async function createQuote(deps: DomainDeps, command: CreateQuoteCommand): Promise<Quote> {
  return deps.quotes.insertQuote(await priceQuote(deps, command));
}

/** Every check and the price of a quote, without storing it (the bulk seed stores quotes itself). */
export async function priceQuote(
  deps: Pick<DomainDeps, 'registry' | 'prices' | 'config' | 'now'>,
  command: CreateQuoteCommand,
): Promise<Prisma.QuoteCreateInput & { id: string }> {
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
    id: newQuoteId(),
    sourceAsset: sourceAsset.id,
    sourceAmount: sourceAmount.toString(),
    destAsset: destAsset.id,
    destAmount: destAmount.toString(),
    sourceTokenPrice: sourcePriceUsd,
    destTokenPrice: destPriceUsd,
    feeBips,
    solver: { [pair.sourceChain.id]: pair.sourceChain.solver, [pair.destChain.id]: pair.destChain.solver },
    createdAt,
    expiresAt: new Date(createdAt.getTime() + deps.config.quoteTtlSeconds * 1000),
  };
}

/** Opaque and URL-safe; 144 random bits, so ids cannot be guessed. */
function newQuoteId(): string {
  return `q_${randomBytes(18).toString('base64url')}`;
}

const QUOTE_ID = /^[A-Za-z0-9_-]{1,128}$/;

export function isPossibleQuoteId(id: string): boolean {
  return QUOTE_ID.test(id);
}

export async function findQuote(deps: Pick<DomainDeps, 'quotes'>, quoteId: string): Promise<Quote> {
  const quote = isPossibleQuoteId(quoteId) ? await deps.quotes.quoteById(quoteId) : null;
  if (!quote) throw new NotFoundError(isPossibleQuoteId(quoteId) ? `quote ${quoteId} not found` : 'quote not found');
  return quote;
}
