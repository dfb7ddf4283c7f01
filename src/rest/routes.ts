import type { z } from 'zod';
import { EscrowEventSchema } from '../domain/escrow-events.ts';
import { parseInput } from '../domain/input.ts';
import { CreateOrderSchema, createOrderSchemaFor, parseUserId } from '../domain/orders.ts';
import { orderFilterWhere, pageInfo, parsePagination, parseStatuses, type FilterNames } from '../domain/order-list.ts';
import type { OrdersStore } from '../db/orders-store.ts';
import { restOrderJson } from './rendered-pages.ts';
import { CreateQuoteSchema } from '../domain/quotes.ts';
import type { Registry } from '../domain/registry/registry.ts';
import { toClientError } from '../http/client-error.ts';
import { SubmitClaimSchema } from '../relayer/claims.ts';
import type { DocumentName } from './documents.ts';
import { graphqlInput, restInput } from './input.ts';
import type { RouteDoc } from './openapi.ts';
import { badRequest } from '../domain/errors.ts';
import { CreateWebhookSchema } from '../webhooks/endpoints.ts';
import { exportResponse, parseExportFormat } from './export.ts';

/**
 * The REST compatibility layer: each route turns a request into the variables of one fixed GraphQL
 * document and picks its answer out of the result. A body becomes the mutation's input as it is,
 * renamed (src/rest/input.ts); the resolver parses it with the input's schema.
 */

export interface RouteInput {
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  registry: Registry;
  now: Date;
  /** The request's reads of orders, for the pages rendered without GraphQL (rendered-pages.ts). */
  orders(): OrdersStore;
}

export interface RouteResult {
  status: number;
  result: unknown;
  headers?: Record<string, string>;
  /** The result as JSON text already (a rendered page), put in the envelope as it is; `result` is then unused. */
  json?: string;
  /** An answer outside the envelope (an export's CSV or NDJSON stream), sent as it is. */
  response?: Response;
}

/** Runs a fixed document and returns its data; a GraphQL error is thrown as the client error it is. */
export type RunDocument = (
  name: DocumentName,
  variables: Record<string, unknown>,
) => Promise<{ data: Record<string, unknown>; cacheMaxAgeSecs?: number }>;

export interface Route {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  /** True when the handler needs the parsed JSON body. */
  body?: boolean;
  /** A write: needs an API key when API_KEYS is set (checked before the body). */
  write?: boolean;
  /** Chain-watcher ingestion: needs WATCHER_KEY (checked before the body). */
  watcher?: boolean;
  /** What the OpenAPI document says of it (src/rest/openapi.ts builds the rest from the GraphQL document). */
  doc: RouteDoc;
  handle(input: RouteInput, run: RunDocument): Promise<RouteResult>;
}

const ok = (result: unknown, status = 200): RouteResult => ({ status, result });
const streamed = (response: Response): RouteResult => ({ status: response.status, result: undefined, response });

/**
 * Runs a write's document with the body as its `input` (plus fields from the path). When GraphQL or
 * the resolver refuses the input (400), the body is parsed with the same schema here, so the message
 * names the field in snake_case, as this client spelled it; any other refusal passes unchanged.
 */
async function runWrite(run: RunDocument, name: DocumentName, schema: z.ZodType, body: unknown, fromPath: Record<string, string> = {}) {
  try {
    return await run(name, { input: { ...(graphqlInput(schema, body) as object), ...fromPath } });
  } catch (error) {
    if (toClientError(error).code === 'BAD_REQUEST') parseInput(schema, restInput(schema, body), 'snake_case');
    throw error;
  }
}

const REST_FILTER_NAMES: FilterNames = {
  status: 'status',
  sourceChain: 'source_chain',
  destChain: 'dest_chain',
  asset: 'asset',
  from: 'from',
  to: 'to',
};

/** REST query parameters (snake_case) to the GraphQL OrderFilter; validated by the domain first. */
function orderFilter(input: RouteInput) {
  const q = input.query;
  const raw = {
    status: q.get('status') ?? undefined,
    sourceChain: q.get('source_chain') ?? undefined,
    destChain: q.get('dest_chain') ?? undefined,
    asset: q.get('asset') ?? undefined,
    from: q.get('from') ?? undefined,
    to: q.get('to') ?? undefined,
  };
  orderFilterWhere(input.registry, raw, input.now, REST_FILTER_NAMES);
  return {
    status: raw.status === undefined ? undefined : parseStatuses(raw.status).map((s) => s.toUpperCase()),
    sourceChain: raw.sourceChain,
    destChain: raw.destChain,
    asset: raw.asset,
    from: raw.from,
    to: raw.to,
  };
}

function pagination(query: URLSearchParams) {
  return parsePagination({ page: query.get('page') ?? undefined, limit: query.get('limit') ?? undefined });
}

/**
 * POST /webhooks' body to the GraphQL input; checked here first with the domain's schema so a bad
 * field is named as the client sent it.
 */
function webhookInput(body: Record<string, unknown>) {
  const parsed = CreateWebhookSchema.safeParse(body);
  if (!parsed.success) throw badRequest(parsed.error.issues[0]!.message);
  return parsed.data;
}

/** GraphQL enum values are UPPER_CASE; REST speaks the contract's lowercase statuses. */
export function restOrder(order: unknown): unknown {
  const o = order as { status?: string } | null;
  // In place: the object is this request's own GraphQL result, and a page has 20 to 100 of them to copy otherwise.
  if (o && typeof o.status === 'string') o.status = o.status.toLowerCase();
  return o;
}

export function restClaim(claim: unknown): unknown {
  const c = claim as { status: string };
  return { ...c, status: c.status.toLowerCase() };
}

function restPage(page: unknown): unknown {
  const p = page as { data: unknown[] };
  for (const order of p.data) restOrder(order);
  return p;
}

/**
 * The two exports differ only in whose orders they stream: every one (no user) or one user's.
 */
function exportRoute(path: string, summary: string, description: string, userOf: (input: RouteInput) => string | undefined): Route {
  return {
    method: 'GET',
    path,
    doc: {
      summary,
      description,
      tag: 'Orders',
      document: 'order',
      result: ['order'],
      responses: { 200: 'The orders, streamed.' },
      errors: [400],
      stream: {
        'text/csv': 'A header row, then one row per order.',
        'application/x-ndjson': 'One JSON order per line, as GET /orders/{order_id} gives it.',
      },
    },
    async handle(input, run) {
      const format = parseExportFormat(input.query.get('format'));
      const userId = userOf(input);
      const variables = userId === undefined ? { filter: orderFilter(input) } : { userId, filter: orderFilter(input) };
      return streamed(await exportResponse({ format, variables, scope: userId ?? 'all', now: input.now, run, toRest: restOrder }));
    },
  };
}

export const routes: Route[] = [
  {
    method: 'POST',
    path: '/orders',
    doc: {
      summary: 'Create an order from a quote',
      description:
        'Consumes the quote exactly once. The same body again (after normalisation) answers 200 with the same order, even after the quote expired; a different body on a consumed quote is a 409.',
      tag: 'Orders',
      document: 'createOrder',
      input: CreateOrderSchema,
      result: ['createOrder', 'order'],
      responses: { 201: 'The new order.', 200: 'An exact replay: the order this body created before.' },
      errors: [400, 401, 404, 409, 410, 422],
      example: {
        user_id: 'alice',
        quote_id: 'q_3kTMd0xbqS8jZm5i2Wq1zdQK',
        commitment_hash: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
        source: { asset: 'bitcoin:btc', recipient: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', amount: '10000000' },
        destination: { asset: 'ethereum:wbtc', recipient: '0x5a5A5a5a5A5a5a5a5a5A5a5A5A5a5a5A5A5A5A5A', amount: '9970000' },
      },
    },
    body: true,
    write: true,
    async handle(input, run) {
      const { data } = await runWrite(run, 'createOrder', createOrderSchemaFor(input.registry), input.body);
      const created = data.createOrder as { replayed: boolean; order: unknown };
      // An exact replay answers 200 with the same order; a first creation 201.
      return ok(restOrder(created.order), created.replayed ? 200 : 201);
    },
  },
  {
    method: 'GET',
    path: '/orders',
    doc: {
      summary: 'List orders',
      description: 'Newest first, offset pages; every filter given must hold.',
      tag: 'Orders',
      document: 'orders',
      result: ['orders'],
      responses: { 200: 'A page of orders (a page past the end has empty data and correct totals).' },
      errors: [400],
    },
    async handle(input, run) {
      const { data } = await run('orders', { ...pagination(input.query), filter: orderFilter(input) });
      return ok(restPage(data.orders));
    },
  },
  {
    method: 'GET',
    path: '/orders/user/:userId',
    doc: {
      summary: "A user's orders",
      tag: 'Orders',
      document: 'ordersByUser',
      result: ['ordersByUser'],
      responses: { 200: "A page of the user's orders, newest first." },
      errors: [400],
    },
    // The answer of the ordersByUser document (the doc above), with PostgreSQL rendering the orders:
    // the hottest page, four times cheaper this way (rendered-pages.ts).
    async handle(input) {
      const userId = parseUserId(input.params.userId, 'user_id');
      const page = pagination(input.query);
      const { data, total } = await input.orders().userPageJson(userId, page, restOrderJson, input.now);
      const { totalPages } = pageInfo(page, total);
      const json = `{"data":[${data}],"page":${page.page},"limit":${page.limit},"total":${total},"total_pages":${totalPages}}`;
      return { status: 200, result: undefined, json };
    },
  },
  exportRoute(
    '/orders/export',
    'Export orders (CSV or NDJSON)',
    'The whole filtered list, newest first, streamed; `format` is csv or ndjson. Same filters as GET /orders.',
    () => undefined,
  ),
  exportRoute(
    '/orders/user/:userId/export',
    "Export a user's orders (CSV or NDJSON)",
    "All of the user's orders, newest first, streamed; `format` is csv or ndjson.",
    (input) => parseUserId(input.params.userId, 'user_id'),
  ),
  {
    method: 'GET',
    path: '/orders/:orderId',
    doc: {
      summary: 'One order',
      tag: 'Orders',
      document: 'order',
      result: ['order'],
      responses: { 200: 'The order, with both intents and its status now.' },
      errors: [404],
    },
    async handle(input, run) {
      const { data } = await run('order', { orderId: input.params.orderId });
      return ok(restOrder(data.order));
    },
  },
  {
    method: 'GET',
    path: '/stats',
    doc: {
      summary: 'Order book statistics',
      description: 'Cached server-side for STATS_CACHE_SECONDS; Cache-Control: max-age says what is left.',
      tag: 'Statistics',
      document: 'stats',
      result: ['stats'],
      responses: { 200: 'Statistics over all time, the last 24 hours and the last 7 days.' },
      errors: [],
    },
    async handle(_input, run) {
      const { data, cacheMaxAgeSecs } = await run('stats', {});
      return {
        status: 200,
        result: data.stats,
        headers: { 'cache-control': `public, max-age=${cacheMaxAgeSecs ?? 0}` },
      };
    },
  },
  {
    method: 'POST',
    path: '/quotes',
    doc: {
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
  {
    method: 'POST',
    path: '/intents/:swapId/events',
    doc: {
      summary: 'Report an escrow event (chain watchers)',
      description:
        'Needs Authorization: Bearer <WATCHER_KEY>. The same event again is a no-op 200; an event no chain can produce for this escrow is a 409 and changes nothing.',
      tag: 'Ingestion',
      document: 'recordEscrowEvent',
      input: EscrowEventSchema,
      result: ['recordEscrowEvent'],
      responses: { 200: 'The order after the event.' },
      errors: [400, 401, 404, 409],
      example: {
        kind: 'create',
        tx_hash: '0x4b1d8e9a7c1f2e3d4c5b6a79880716253443526170819a2b3c4d5e6f70819a2b',
        block_number: 840000,
        timestamp: '2026-11-23T12:00:00Z',
      },
    },
    body: true,
    watcher: true,
    async handle(input, run) {
      const { data } = await runWrite(run, 'recordEscrowEvent', EscrowEventSchema, input.body, {
        swapId: input.params.swapId!,
      });
      return ok(restOrder(data.recordEscrowEvent));
    },
  },
  {
    method: 'POST',
    path: '/relayer/claims',
    doc: {
      summary: 'Ask the relayer to claim the destination escrow',
      description:
        'Stored before the answer, then sent by the relayer worker. Repeats answer 202 with the stored claim. The secret is never returned.',
      tag: 'Relayer',
      document: 'submitClaim',
      input: SubmitClaimSchema,
      result: ['submitClaim'],
      responses: { 202: 'The claim, queued.' },
      errors: [400, 401, 404, 409],
      example: {
        order_id: '6f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0',
        commitment: '8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b',
      },
    },
    body: true,
    write: true,
    async handle(input, run) {
      const { data } = await runWrite(run, 'submitClaim', SubmitClaimSchema, input.body);
      return ok(restClaim(data.submitClaim), 202);
    },
  },
  {
    method: 'GET',
    path: '/relayer/claims/:orderId',
    doc: {
      summary: "The relayer's claim for an order",
      tag: 'Relayer',
      document: 'claim',
      result: ['claim'],
      responses: { 200: 'The claim: queued, submitted, confirmed or failed, with its transaction and attempts.' },
      errors: [404],
    },
    async handle(input, run) {
      const { data } = await run('claim', { orderId: input.params.orderId });
      return ok(restClaim(data.claim));
    },
  },
  {
    method: 'POST',
    path: '/webhooks',
    body: true,
    doc: {
      summary: 'Register a webhook endpoint',
      description: 'Needs an API key; the endpoint belongs to that key. The signing secret is returned once, here.',
      tag: 'Webhooks',
      document: 'createWebhookEndpoint',
      input: CreateWebhookSchema,
      result: ['createWebhookEndpoint'],
      merge: 'endpoint',
      responses: { 201: 'The endpoint and its signing secret.' },
      errors: [400, 401, 409],
      example: { url: 'https://hooks.example.com/orderbook', events: ['order.updated'] },
    },
    write: true,
    async handle(input, run) {
      const body = (input.body ?? {}) as Record<string, unknown>;
      const { data } = await run('createWebhookEndpoint', { input: webhookInput(body) });
      const created = data.createWebhookEndpoint as { secret: string; endpoint: Record<string, unknown> };
      return ok({ ...created.endpoint, secret: created.secret }, 201);
    },
  },
  {
    method: 'GET',
    path: '/webhooks',
    write: true,
    doc: {
      summary: "The API key's webhook endpoints",
      tag: 'Webhooks',
      document: 'webhookEndpoints',
      result: ['webhookEndpoints'],
      responses: { 200: 'Every endpoint of the key.' },
      errors: [401],
    },
    async handle(_input, run) {
      return ok((await run('webhookEndpoints', {})).data.webhookEndpoints);
    },
  },
  {
    method: 'DELETE',
    path: '/webhooks/:id',
    doc: {
      summary: 'Delete a webhook endpoint',
      tag: 'Webhooks',
      document: 'deleteWebhookEndpoint',
      result: ['deleteWebhookEndpoint'],
      responses: { 200: 'The deleted endpoint.' },
      errors: [401, 404],
    },
    write: true,
    async handle(input, run) {
      return ok((await run('deleteWebhookEndpoint', { id: input.params.id })).data.deleteWebhookEndpoint);
    },
  },
  {
    method: 'POST',
    path: '/webhooks/:id/rotate-secret',
    doc: {
      summary: "Rotate a webhook endpoint's signing secret",
      description: 'The old secret keeps signing beside the new one for grace_seconds.',
      tag: 'Webhooks',
      document: 'rotateWebhookSecret',
      result: ['rotateWebhookSecret'],
      merge: 'endpoint',
      responses: { 200: 'The endpoint and its new secret.' },
      errors: [400, 401, 404],
      example: { grace_seconds: 3600 },
    },
    body: true,
    write: true,
    async handle(input, run) {
      const grace = (input.body as Record<string, unknown> | null)?.grace_seconds;
      if (grace !== undefined && !Number.isInteger(grace)) throw badRequest('grace_seconds must be an integer from 0 to 604800 (7 days)');
      const { data } = await run('rotateWebhookSecret', { input: { id: input.params.id, graceSeconds: grace } });
      const rotated = data.rotateWebhookSecret as { secret: string; endpoint: Record<string, unknown> };
      return ok({ ...rotated.endpoint, secret: rotated.secret });
    },
  },
  {
    method: 'GET',
    path: '/webhooks/:id/deliveries',
    doc: {
      summary: "A webhook endpoint's recent deliveries",
      tag: 'Webhooks',
      document: 'webhookDeliveries',
      result: ['webhookDeliveries'],
      pathVariables: { id: 'endpointId' },
      responses: { 200: 'Deliveries, newest first.' },
      errors: [400, 401, 404],
    },
    write: true,
    async handle(input, run) {
      const raw = input.query.get('limit');
      const limit = raw === null ? undefined : /^\d{1,3}$/.test(raw) ? Number(raw) : -1;
      if (limit === -1) throw badRequest('limit must be an integer from 1 to 100');
      return ok((await run('webhookDeliveries', { endpointId: input.params.id, limit })).data.webhookDeliveries);
    },
  },
  {
    method: 'POST',
    path: '/webhooks/:id/deliveries/:deliveryId/redeliver',
    doc: {
      summary: 'Deliver an event again',
      tag: 'Webhooks',
      document: 'redeliverWebhook',
      result: ['redeliverWebhook'],
      pathVariables: { id: 'endpointId' },
      responses: { 202: 'The delivery, queued again.' },
      errors: [401, 404, 409],
    },
    write: true,
    async handle(input, run) {
      const { data } = await run('redeliverWebhook', { input: { endpointId: input.params.id, deliveryId: input.params.deliveryId } });
      return ok(data.redeliverWebhook, 202);
    },
  },
  {
    method: 'GET',
    path: '/assets',
    doc: {
      summary: 'The assets the order book quotes',
      tag: 'Registry',
      document: 'assets',
      result: ['assets'],
      responses: { 200: 'Every asset in the registry.' },
      errors: [],
    },
    async handle(_input, run) {
      return ok((await run('assets', {})).data.assets);
    },
  },
  {
    method: 'GET',
    path: '/chains',
    doc: {
      summary: 'The chains the order book settles on',
      tag: 'Registry',
      document: 'chains',
      result: ['chains'],
      responses: { 200: 'Every chain in the registry.' },
      errors: [],
    },
    async handle(_input, run) {
      return ok((await run('chains', {})).data.chains);
    },
  },
];

/** Matches `/orders/:orderId`-style patterns; returns the decoded params or undefined. */
export function matchPath(pattern: string, pathname: string): Record<string, string> | undefined {
  const want = patternSegments(pattern);
  const got = pathSegments(pathname);
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    const g = got[i]!;
    if (w.startsWith(':')) {
      if (g === '') return undefined;
      try {
        params[w.slice(1)] = decodeURIComponent(g);
      } catch {
        return undefined;
      }
    } else if (w !== g) {
      return undefined;
    }
  }
  return params;
}

/** Each route's pattern split once (a request is matched against every route, metrics.ts matches again). */
const patterns = new Map<string, string[]>();
const patternSegments = (pattern: string) => {
  let segments = patterns.get(pattern);
  if (!segments) patterns.set(pattern, (segments = pattern.split('/')));
  return segments;
};

/** The request's path split once for all the routes it is matched against: the last one asked, kept. */
let lastPath: string | undefined;
let lastSegments: string[] = [];
function pathSegments(pathname: string): readonly string[] {
  if (pathname !== lastPath) {
    const segments = pathname.replace(/\/+$/, '').split('/');
    if (pathname === '/') segments.length = 1;
    lastPath = pathname;
    lastSegments = segments;
  }
  return lastSegments;
}
