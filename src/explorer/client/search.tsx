import { useEffect, useState } from 'preact/hooks';
import {
  ORDERS_BY_IDS_QUERY,
  ORDERS_BY_SWAP_QUERY,
  ORDERS_BY_TX_QUERY,
  USER_ORDERS_QUERY,
  type Document,
  type OrderPage,
  type OrderSummary,
} from '../documents.ts';
import { type ApiResult, dataOf, query } from './api.ts';
import { Link } from './link.tsx';
import { useLoad } from './load.ts';
import { Failed, Loading, NotFound } from './messages.tsx';
import { OrdersTable } from './orders-table.tsx';
import { navigate, searchPath, userPath } from './router.ts';

/** The one search box: an order id, a transaction hash, a swap id or a user. */
export function SearchBox({ initial }: { initial: string | undefined }) {
  const [term, setTerm] = useState(initial ?? '');
  useEffect(() => setTerm(initial ?? ''), [initial]);
  const onSubmit = (event: Event) => {
    event.preventDefault();
    const trimmed = term.trim();
    if (trimmed) navigate(searchPath(trimmed));
  };
  return (
    <search>
      <form class="search" onSubmit={onSubmit}>
        <label for="search-term">Order id, transaction hash, swap id or user</label>
        <div class="search-row">
          <input
            id="search-term"
            type="search"
            name="q"
            value={term}
            onInput={(event) => setTerm((event.target as HTMLInputElement).value)}
            autocomplete="off"
            spellcheck={false}
            required
          />
          <button type="submit">Search</button>
        </div>
      </form>
    </search>
  );
}

/**
 * A lookup that answers BAD_REQUEST means the term cannot be that kind of thing (a malformed hash for its
 * chain, say): no match, not a failure.
 */
async function lookup<Result, Variables>(doc: Document<Result, Variables>, variables: Variables, pick: (data: Result) => OrderPage) {
  const result: ApiResult<Result> = await query(doc, variables);
  if (!result.data && result.errors.every((error) => error.extensions?.code === 'BAD_REQUEST')) return undefined;
  return pick(dataOf(result));
}

export interface Matches {
  byId: OrderSummary[];
  byTransaction: OrderSummary[];
  bySwap: OrderSummary[];
  userOrders: number;
}

/** Every kind of match at once: the same text could be a user's id and a hash. */
export async function findMatches(term: string): Promise<Matches> {
  const [byId, byTransaction, bySwap, user] = await Promise.all([
    lookup(ORDERS_BY_IDS_QUERY, { ids: [term] }, (data) => data.orders),
    lookup(ORDERS_BY_TX_QUERY, { txHash: term }, (data) => data.orders),
    lookup(ORDERS_BY_SWAP_QUERY, { swapId: term }, (data) => data.orders),
    lookup(USER_ORDERS_QUERY, { userId: term, page: 1, limit: 1 }, (data) => data.ordersByUser),
  ]);
  return { byId: byId?.data ?? [], byTransaction: byTransaction?.data ?? [], bySwap: bySwap?.data ?? [], userOrders: user?.total ?? 0 };
}

export function SearchResults({ term }: { term: string }) {
  const loaded = useLoad(() => findMatches(term), [term]);
  if (loaded.state === 'loading') return <Loading what="matches" />;
  if (loaded.state === 'failed') return <Failed message={loaded.message} />;
  const { byId, byTransaction, bySwap, userOrders } = loaded.value;
  const found = byId.length + byTransaction.length + bySwap.length + userOrders > 0;
  return (
    <section aria-labelledby="results-heading">
      <h2 id="results-heading">
        Results for <span class="mono">{term}</span>
      </h2>
      {!found && <NotFound>Nothing matches it: no order id, transaction hash, swap id or user with orders.</NotFound>}
      {byId.length > 0 && <OrdersTable orders={byId} caption="Order with this id" />}
      {byTransaction.length > 0 && <OrdersTable orders={byTransaction} caption="Orders with this transaction" />}
      {bySwap.length > 0 && <OrdersTable orders={bySwap} caption="Order with this swap (escrow) id" />}
      {userOrders > 0 && (
        <p class="user-match">
          User <Link href={userPath(term)}>{term}</Link>: {userOrders} {userOrders === 1 ? 'order' : 'orders'}.
        </p>
      )}
    </section>
  );
}
