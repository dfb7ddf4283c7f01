import type { Prisma } from '../generated/prisma/client.ts';
import { BadRequestError } from './errors.ts';
import { assetId, intInRange, parseField, text, timestamp } from './input.ts';
import type { Registry } from './registry/registry.ts';
import { orderLookup, parseOrderIds } from './order-lookup.ts';
import { ORDER_STATUSES, statusWhere, type OrderStatus } from './status/rule.ts';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

export interface Pagination {
  page: number;
  limit: number;
}

// Built once: a zod schema costs more to build than to run, and these run on every list request.
// Nine digits, as intInRange reads at most: a page past a billion is never one a client means.
const PAGE = intInRange(1, 999_999_999);
const LIMIT = intInRange(1, MAX_LIMIT);
const CHAIN_ID = text(64);

/** page >= 1 (default 1), limit 1..100 (default 20); numbers or decimal strings. */
export function parsePagination(input: { page?: unknown; limit?: unknown }): Pagination {
  return {
    page: input.page == null ? 1 : parseField(PAGE, input.page, 'page'),
    limit: input.limit == null ? DEFAULT_LIMIT : parseField(LIMIT, input.limit, 'limit'),
  };
}

export interface OrderFilterInput {
  /** One status, a comma-separated list, or an array. */
  status?: unknown;
  sourceChain?: unknown;
  destChain?: unknown;
  /** Orders whose source or destination asset is this one. */
  asset?: unknown;
  /** created_at >= from */
  from?: unknown;
  /** created_at < to */
  to?: unknown;
  /** Orders with this transaction (create, claim, cancel or bridge) on either intent (order-lookup.ts). */
  txHash?: unknown;
  /** The order whose source or destination intent this is. */
  swapId?: unknown;
  /** These orders: an array, or a comma-separated list. */
  ids?: unknown;
}

export function parseStatuses(value: unknown, field = 'status'): OrderStatus[] {
  const items = Array.isArray(value) ? value : String(value).split(',');
  const statuses = items.map((item) => String(item).trim().toLowerCase());
  for (const status of statuses) {
    if (!(ORDER_STATUSES as readonly string[]).includes(status)) {
      throw new BadRequestError(`${field} must be one or more of ${ORDER_STATUSES.join(', ')} (comma-separated)`);
    }
  }
  return [...new Set(statuses)] as OrderStatus[];
}

function listedChain(registry: Registry, value: unknown, field: string): string {
  const chain = parseField(CHAIN_ID, value, field).toLowerCase();
  if (!registry.chain(chain)) throw new BadRequestError(`${field} must be a listed chain id (see GET /chains)`);
  return chain;
}

/** How a client spells each filter in its messages: GraphQL's argument fields, or REST's query parameters. */
export type FilterNames = Record<keyof OrderFilterInput, string>;

export const GRAPHQL_FILTER_NAMES: FilterNames = {
  status: 'filter.status',
  sourceChain: 'filter.sourceChain',
  destChain: 'filter.destChain',
  asset: 'filter.asset',
  from: 'filter.from',
  to: 'filter.to',
  txHash: 'filter.txHash',
  swapId: 'filter.swapId',
  ids: 'filter.ids',
};

/**
 * Filters of GET /orders and `orders(filter:)`; an unknown value is a 400, never an empty page.
 * Messages name each filter as the client spelled it (`names`).
 */
export function orderFilterWhere(
  registry: Registry,
  filter: OrderFilterInput,
  now: Date,
  names: FilterNames = GRAPHQL_FILTER_NAMES,
): Prisma.OrderWhereInput {
  const and: Prisma.OrderWhereInput[] = [];
  if (filter.status != null) {
    and.push({ OR: parseStatuses(filter.status, names.status).map((status) => statusWhere(status, now)) });
  }
  if (filter.sourceChain != null) and.push({ sourceChain: listedChain(registry, filter.sourceChain, names.sourceChain) });
  if (filter.destChain != null) and.push({ destChain: listedChain(registry, filter.destChain, names.destChain) });
  if (filter.asset != null) {
    const asset = parseField(assetId, filter.asset, names.asset);
    if (!registry.asset(asset)) throw new BadRequestError(`${names.asset} must be a listed asset id (see GET /assets)`);
    and.push({ OR: [{ sourceAsset: asset }, { destAsset: asset }] });
  }
  const from = filter.from == null ? undefined : asDate(filter.from, names.from);
  const to = filter.to == null ? undefined : asDate(filter.to, names.to);
  if (from && to && from > to) throw new BadRequestError(`${names.from} must not be later than ${names.to}`);
  if (from || to) and.push({ createdAt: { gte: from, lt: to } });
  if (filter.ids != null) and.push({ id: { in: parseOrderIds(filter.ids, names.ids) } });
  // Checked here with the rest; the store resolves them (orderLookup, OrderSet.lookup).
  orderLookup(registry, filter, names);
  return and.length === 0 ? {} : { AND: and };
}

function asDate(value: unknown, field: string): Date {
  return parseField(timestamp, value, field);
}

/** Newest first, order_id as the tie-break, so pages are stable. */
export const NEWEST_FIRST: Prisma.OrderOrderByWithRelationInput[] = [{ createdAt: 'desc' }, { id: 'desc' }];

export function pageInfo(pagination: Pagination, total: number) {
  return {
    page: pagination.page,
    limit: pagination.limit,
    total,
    totalPages: Math.ceil(total / pagination.limit),
  };
}
