import { requireWriter } from '../http/api-keys.ts';
import { parseInput } from '../domain/input.ts';
import { CreateQuoteSchema, createQuote, findQuote } from '../domain/quotes.ts';
import { builder } from './builder.ts';

const QuoteLeg = builder.objectRef<{ asset: string; amount: string }>('QuoteLeg').implement({
  fields: (t) => ({
    asset: t.exposeString('asset'),
    amount: t.exposeString('amount', { description: 'Base units, decimal string.' }),
  }),
});

export const Quote = builder.prismaObject('Quote', {
  description: 'A priced offer, valid until expiresAt and consumed by exactly one order.',
  fields: (t) => ({
    quoteId: t.exposeString('id'),
    source: t.field({
      type: QuoteLeg,
      resolve: (q) => ({ asset: q.sourceAsset, amount: q.sourceAmount.toFixed() }),
    }),
    destination: t.field({
      type: QuoteLeg,
      resolve: (q) => ({ asset: q.destAsset, amount: q.destAmount.toFixed() }),
    }),
    sourceTokenPrice: t.string({ description: 'USD, decimal string.', resolve: (q) => q.sourceTokenPrice.toFixed() }),
    destTokenPrice: t.string({ description: 'USD, decimal string.', resolve: (q) => q.destTokenPrice.toFixed() }),
    feeBips: t.exposeInt('feeBips'),
    solver: t.field({
      type: 'JSONObject',
      description: 'The solver\'s address on each chain of the pair, keyed by chain id.',
      resolve: (q) => q.solver as Record<string, unknown>,
    }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    consumedBy: t.exposeString('consumedBy', { nullable: true, description: 'The order that consumed it.' }),
  }),
});

const QuoteSourceInput = builder.inputType('QuoteSourceInput', {
  fields: (t) => ({
    asset: t.string({ required: true }),
    amount: t.string({ required: true, description: 'Base units, decimal string.' }),
  }),
});

const QuoteDestinationInput = builder.inputType('QuoteDestinationInput', {
  fields: (t) => ({ asset: t.string({ required: true }) }),
});

const CreateQuoteInput = builder.inputType('CreateQuoteInput', {
  fields: (t) => ({
    source: t.field({ type: QuoteSourceInput, required: true }),
    destination: t.field({ type: QuoteDestinationInput, required: true }),
  }),
});

builder.queryFields((t) => ({
  quote: t.prismaField({
    type: 'Quote',
    nullable: true,
    args: { quoteId: t.arg.string({ required: true }) },
    // Quotes have no relations, so there is no selection to apply.
    resolve: (_query, _root, args, ctx) => findQuote(ctx, args.quoteId),
  }),
}));

builder.mutationFields((t) => ({
  createQuote: t.prismaField({
    type: 'Quote',
    args: { input: t.arg({ type: CreateQuoteInput, required: true }) },
    resolve: (_query, _root, { input }, ctx) => {
      requireWriter(ctx);
      return createQuote(ctx, parseInput(CreateQuoteSchema, input));
    },
  }),
}));
