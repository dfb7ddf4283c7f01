import { requireWriter } from '../http/api-keys.ts';
import { parseInput } from '../domain/input.ts';
import { CreateQuoteSchema, createQuote, findQuote } from '../domain/quotes.ts';
import { builder } from './builder.ts';

const QuoteLeg = builder.objectRef<{ asset: string; amount: string }>('QuoteLeg').implement({
  description: 'One side of a quote: an asset and an amount of it.',
  fields: (t) => ({
    asset: t.exposeString('asset', { description: 'Asset id, chain:token.' }),
    amount: t.exposeString('amount', { description: 'Base units, decimal string.' }),
  }),
});

export const Quote = builder.prismaObject('Quote', {
  description: 'A priced offer, valid until expiresAt and consumed by exactly one order.',
  fields: (t) => ({
    quoteId: t.exposeString('id', { description: 'Opaque, URL-safe id (`q_` and base64url).' }),
    source: t.field({
      description: 'What the user sends: the requested asset and amount.',
      type: QuoteLeg,
      resolve: (q) => ({ asset: q.sourceAsset, amount: q.sourceAmount.toFixed() }),
    }),
    destination: t.field({
      description: 'What the user receives: the priced amount, less the fee, rounded down.',
      type: QuoteLeg,
      resolve: (q) => ({ asset: q.destAsset, amount: q.destAmount.toFixed() }),
    }),
    sourceTokenPrice: t.string({ description: 'USD, decimal string.', resolve: (q) => q.sourceTokenPrice.toFixed() }),
    destTokenPrice: t.string({ description: 'USD, decimal string.', resolve: (q) => q.destTokenPrice.toFixed() }),
    feeBips: t.exposeInt('feeBips', { description: 'Fee in basis points (1/100 of a percent), taken from the destination amount.' }),
    solver: t.field({
      type: 'JSONObject',
      description: "The solver's address on each chain of the pair, keyed by chain id.",
      resolve: (q) => q.solver as Record<string, unknown>,
    }),
    expiresAt: t.expose('expiresAt', {
      description: 'After this the quote cannot be used for a new order (QUOTE_TTL_SECONDS after creation).',
      type: 'DateTime',
    }),
    createdAt: t.expose('createdAt', { description: 'When the quote was made.', type: 'DateTime' }),
    consumedBy: t.exposeString('consumedBy', { nullable: true, description: 'The order that consumed it.' }),
  }),
});

const QuoteSourceInput = builder.inputType('QuoteSourceInput', {
  description: 'The asset and amount the user wants to send.',
  fields: (t) => ({
    asset: t.string({ description: 'Source asset id, chain:token (see `assets`).', required: true }),
    amount: t.string({ required: true, description: 'Base units, decimal string.' }),
  }),
});

const QuoteDestinationInput = builder.inputType('QuoteDestinationInput', {
  description: 'The asset the user wants to receive.',
  fields: (t) => ({ asset: t.string({ required: true, description: 'Destination asset id, chain:token (see `assets`).' }) }),
});

const CreateQuoteInput = builder.inputType('CreateQuoteInput', {
  description: 'What to quote: send an amount of one asset, receive another.',
  fields: (t) => ({
    source: t.field({ description: 'What the user sends.', type: QuoteSourceInput, required: true }),
    destination: t.field({ description: 'What the user receives.', type: QuoteDestinationInput, required: true }),
  }),
});

builder.queryFields((t) => ({
  quote: t.prismaField({
    description: 'A quote by id (`GET /quotes/{quote_id}`); NOT_FOUND when there is none.',
    type: 'Quote',
    nullable: true,
    args: { quoteId: t.arg.string({ description: "The quote's id.", required: true }) },
    // Quotes have no relations, so there is no selection to apply.
    resolve: (_query, _root, args, ctx) => findQuote(ctx, args.quoteId),
  }),
}));

builder.mutationFields((t) => ({
  createQuote: t.prismaField({
    description: 'Prices a swap (`POST /quotes`); needs an API key when API_KEYS is set.',
    type: 'Quote',
    args: { input: t.arg({ description: 'What to quote.', type: CreateQuoteInput, required: true }) },
    resolve: (_query, _root, { input }, ctx) => {
      requireWriter(ctx);
      return createQuote(ctx, parseInput(CreateQuoteSchema, input));
    },
  }),
}));
