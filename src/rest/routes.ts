import type { z } from 'zod';
import { EscrowEventSchema } from '../domain/escrow-events.ts';
import { parseInput } from '../domain/input.ts';
import { createOrderSchemaFor, parseUserId } from '../domain/orders.ts';
import { orderFilterWhere, parsePagination, parseStatuses, type FilterNames } from '../domain/order-list.ts';
import { CreateQuoteSchema } from '../domain/quotes.ts';
import type { Registry } from '../domain/registry/registry.ts';
import { toClientError } from '../http/client-error.ts';
import { SubmitClaimSchema } from '../relayer/claims.ts';
import type { DocumentName } from './documents.ts';
import { graphqlInput, restInput } from './input.ts';
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
}

export interface RouteResult {
  status: number;
  result: unknown;
  headers?: Record<string, string>;
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
  return o && typeof o.status === 'string' ? { ...o, status: o.status.toLowerCase() } : o;
}

export function restClaim(claim: unknown): unknown {
  const c = claim as { status: string };
  return { ...c, status: c.status.toLowerCase() };
}

function restPage(page: unknown): unknown {
  const p = page as { data: unknown[] };
  return { ...p, data: p.data.map(restOrder) };
}

export const routes: Route[] = [
  {
    method: 'POST',
    path: '/orders',
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
    async handle(input, run) {
      const { data } = await run('orders', { ...pagination(input.query), filter: orderFilter(input) });
      return ok(restPage(data.orders));
    },
  },
  {
    method: 'GET',
    path: '/orders/user/:userId',
    async handle(input, run) {
      const { data } = await run('ordersByUser', { userId: parseUserId(input.params.userId, 'user_id'), ...pagination(input.query) });
      return ok(restPage(data.ordersByUser));
    },
  },
  {
    method: 'GET',
    path: '/orders/export',
    async handle(input, run) {
      const format = parseExportFormat(input.query.get('format'));
      const variables = { filter: orderFilter(input) };
      return streamed(await exportResponse({ format, variables, scope: 'all', now: input.now, run, toRest: restOrder }));
    },
  },
  {
    method: 'GET',
    path: '/orders/user/:userId/export',
    async handle(input, run) {
      const format = parseExportFormat(input.query.get('format'));
      const userId = parseUserId(input.params.userId, 'user_id');
      const variables = { userId, filter: orderFilter(input) };
      return streamed(await exportResponse({ format, variables, scope: userId, now: input.now, run, toRest: restOrder }));
    },
  },
  {
    method: 'GET',
    path: '/orders/:orderId',
    async handle(input, run) {
      const { data } = await run('order', { orderId: input.params.orderId });
      return ok(restOrder(data.order));
    },
  },
  {
    method: 'GET',
    path: '/stats',
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
    async handle(input, run) {
      const { data } = await run('quote', { quoteId: input.params.quoteId });
      return ok(data.quote);
    },
  },
  {
    method: 'POST',
    path: '/intents/:swapId/events',
    body: true,
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
    async handle(input, run) {
      const { data } = await run('claim', { orderId: input.params.orderId });
      return ok(restClaim(data.claim));
    },
  },
  {
    method: 'POST',
    path: '/webhooks',
    body: true,
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
    async handle(_input, run) {
      return ok((await run('webhookEndpoints', {})).data.webhookEndpoints);
    },
  },
  {
    method: 'DELETE',
    path: '/webhooks/:id',
    write: true,
    async handle(input, run) {
      return ok((await run('deleteWebhookEndpoint', { id: input.params.id })).data.deleteWebhookEndpoint);
    },
  },
  {
    method: 'POST',
    path: '/webhooks/:id/rotate-secret',
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
    write: true,
    async handle(input, run) {
      const { data } = await run('redeliverWebhook', { input: { endpointId: input.params.id, deliveryId: input.params.deliveryId } });
      return ok(data.redeliverWebhook, 202);
    },
  },
  {
    method: 'GET',
    path: '/assets',
    async handle(_input, run) {
      return ok((await run('assets', {})).data.assets);
    },
  },
  {
    method: 'GET',
    path: '/chains',
    async handle(_input, run) {
      return ok((await run('chains', {})).data.chains);
    },
  },
];

/** Matches `/orders/:orderId`-style patterns; returns the decoded params or undefined. */
export function matchPath(pattern: string, pathname: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const got = pathname.replace(/\/+$/, '').split('/');
  if (pathname === '/') got.length = 1;
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
