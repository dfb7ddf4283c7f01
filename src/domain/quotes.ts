import { randomBytes } from 'node:crypto';
import type { Prisma, Quote } from '../generated/prisma/client.ts';
import { parseAmount } from './amounts.ts';
import type { DomainDeps } from './deps.ts';
import { notFound, unprocessable } from './errors.ts';
import { requireAssetId, requireObject, toSeconds } from './input.ts';
import { destinationAmount } from './prices.ts';
import type { Asset, Chain } from './registry/registry.ts';

export interface QuoteRequest {
  sourceAsset: string;
  sourceAmount: bigint;
  destAsset: string;
}

/** Shape and formats first (400), in field order. */
export function parseQuoteRequest(body: unknown): QuoteRequest {
  const input = requireObject(body, 'body');
  const source = requireObject(input.source, 'source');
  const destination = requireObject(input.destination, 'destination');
  return {
    sourceAsset: requireAssetId(source.asset, 'source.asset'),
    sourceAmount: parseAmount(source.amount, 'source.amount'),
    destAsset: requireAssetId(destination.asset, 'destination.asset'),
  };
}

export interface ListedPair {
  sourceAsset: Asset;
  sourceChain: Chain;
  destAsset: Asset;
  destChain: Chain;
}

/** The registry's word on a pair (422): both listed, distinct, and on the same kind of network. */
export function resolvePair(deps: Pick<DomainDeps, 'registry'>, sourceId: string, destId: string): ListedPair {
  const sourceAsset = deps.registry.asset(sourceId);
  if (!sourceAsset) throw unprocessable(`source.asset ${sourceId} is not a listed asset (see GET /assets)`);
  const destAsset = deps.registry.asset(destId);
  if (!destAsset) throw unprocessable(`destination.asset ${destId} is not a listed asset (see GET /assets)`);
  if (sourceAsset.id === destAsset.id) throw unprocessable('destination.asset must differ from source.asset');
  const sourceChain = deps.registry.chain(sourceAsset.chain);
  const destChain = deps.registry.chain(destAsset.chain);
  if (!sourceChain || !destChain) throw new Error(`registry lists an asset on an unknown chain`);
  if (sourceChain.network !== destChain.network) {
    throw unprocessable(
      `cannot swap between ${sourceChain.network} and ${destChain.network}: source.asset and destination.asset must be on the same network`,
    );
  }
  return { sourceAsset, sourceChain, destAsset, destChain };
}

export async function createQuote(deps: DomainDeps, body: unknown): Promise<Quote> {
  return deps.rows.insertQuote(await priceQuote(deps, parseQuoteRequest(body)));
}

/** Every check and the price of a quote, without storing it (the bulk seed stores quotes itself). */
export async function priceQuote(
  deps: Pick<DomainDeps, 'registry' | 'prices' | 'config' | 'now'>,
  request: QuoteRequest,
): Promise<Prisma.QuoteCreateInput & { id: string }> {
  const pair = resolvePair(deps, request.sourceAsset, request.destAsset);
  const { sourceAsset, destAsset } = pair;
  const min = BigInt(sourceAsset.min_amount);
  const max = BigInt(sourceAsset.max_amount);
  if (request.sourceAmount < min || request.sourceAmount > max) {
    throw unprocessable(
      `source.amount must be between ${sourceAsset.min_amount} and ${sourceAsset.max_amount} base units of ${sourceAsset.id}`,
    );
  }
  const [sourcePriceUsd, destPriceUsd] = await Promise.all([
    deps.prices.priceUsd(sourceAsset),
    deps.prices.priceUsd(destAsset),
  ]);
  const feeBips = deps.registry.feeBips;
  const destAmount = destinationAmount({
    sourceAmount: request.sourceAmount,
    sourceDecimals: sourceAsset.decimals,
    destDecimals: destAsset.decimals,
    sourcePriceUsd,
    destPriceUsd,
    feeBips,
  });
  if (destAmount <= 0n) throw unprocessable('source.amount is too small: the destination amount rounds down to zero');

  const createdAt = toSeconds(deps.now());
  return {
    id: newQuoteId(),
    sourceAsset: sourceAsset.id,
    sourceAmount: request.sourceAmount.toString(),
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

export async function findQuote(deps: Pick<DomainDeps, 'prisma'>, quoteId: string): Promise<Quote> {
  const quote = isPossibleQuoteId(quoteId) ? await deps.prisma.quote.findUnique({ where: { id: quoteId } }) : null;
  if (!quote) throw notFound(isPossibleQuoteId(quoteId) ? `quote ${quoteId} not found` : 'quote not found');
  return quote;
}
