import { orderFilterWhere, parsePagination, parseStatuses, type FilterNames } from '../domain/order-list.ts';
import type { RouteInput } from './route.ts';

/** REST query parameters to GraphQL variables: the order filter and the page. */

const REST_FILTER_NAMES: FilterNames = {
  status: 'status',
  sourceChain: 'source_chain',
  destChain: 'dest_chain',
  asset: 'asset',
  from: 'from',
  to: 'to',
  txHash: 'tx_hash',
  swapId: 'swap_id',
  ids: 'ids',
};

/** REST query parameters (snake_case) to the GraphQL OrderFilter; validated by the domain first. */
export function orderFilter(input: RouteInput) {
  const q = input.query;
  const raw = {
    status: q.get('status') ?? undefined,
    sourceChain: q.get('source_chain') ?? undefined,
    destChain: q.get('dest_chain') ?? undefined,
    asset: q.get('asset') ?? undefined,
    from: q.get('from') ?? undefined,
    to: q.get('to') ?? undefined,
    txHash: q.get('tx_hash') ?? undefined,
    swapId: q.get('swap_id') ?? undefined,
    ids: q.get('ids') ?? undefined,
  };
  orderFilterWhere(input.registry, raw, input.now, REST_FILTER_NAMES);
  return {
    status: raw.status === undefined ? undefined : parseStatuses(raw.status).map((s) => s.toUpperCase()),
    sourceChain: raw.sourceChain,
    destChain: raw.destChain,
    asset: raw.asset,
    from: raw.from,
    to: raw.to,
    txHash: raw.txHash,
    swapId: raw.swapId,
    ids: raw.ids === undefined ? undefined : raw.ids.split(','),
  };
}

export function pagination(query: URLSearchParams) {
  return parsePagination({ page: query.get('page') ?? undefined, limit: query.get('limit') ?? undefined });
}
