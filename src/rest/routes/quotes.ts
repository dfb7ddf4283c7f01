import { CreateQuoteSchema, createQuote } from '../../domain/quotes.ts';
import { restQuoteJson } from '../rendered-rows.ts';
import { ok, runDomainWrite, type Route } from '../route.ts';

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
    // The createQuote document's answer (the doc above), rendered from the signed quote (rendered-rows.ts).
    async handle(input) {
      const quote = await runDomainWrite(input.writer(), CreateQuoteSchema, input.body, createQuote);
      return { status: 201, result: undefined, json: restQuoteJson(quote) };
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
      // 410: an unconsumed quote made for assets or solver addresses the registry no longer lists.
      errors: [404, 410],
    },
    async handle(input, run) {
      const { data } = await run('quote', { quoteId: input.params.quoteId });
      return ok(data.quote);
    },
  },
];
