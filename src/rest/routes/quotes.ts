import { CreateQuoteSchema } from '../../domain/quotes.ts';
import { ok, runWrite, type Route } from '../route.ts';

export const quoteRoutes: Route[] = [
  {
    method: 'POST',
    path: '/quotes',
    doc: {
      operationId: 'createQuote',
      summary: 'Get a quote',
      description: 'Prices the swap at the registry prices less the fee; valid for QUOTE_TTL_SECONDS.',
      tag: 'Quotes',
      document: 'createQuote',
      input: CreateQuoteSchema,
      result: ['createQuote'],
      responses: { 201: 'The quote.' },
      errors: [400, 401, 422],
      example: { source: { asset: 'bitcoin:btc', amount: '10000000' }, destination: { asset: 'ethereum:wbtc' } },
    },
    body: true,
    write: true,
    async handle(input, run) {
      const { data } = await runWrite(run, 'createQuote', CreateQuoteSchema, input.body);
      return ok(data.createQuote, 201);
    },
  },
  {
    method: 'GET',
    path: '/quotes/:quoteId',
    doc: {
      operationId: 'getQuote',
      summary: 'One quote',
      tag: 'Quotes',
      document: 'quote',
      result: ['quote'],
      responses: { 200: 'The quote; consumed_by names the order once one consumed it.' },
      errors: [404],
    },
    async handle(input, run) {
      const { data } = await run('quote', { quoteId: input.params.quoteId });
      return ok(data.quote);
    },
  },
];
