import { USER_ORDERS_QUERY } from '../documents.ts';
import { dataOf, query } from './api.ts';
import { Link } from './link.tsx';
import { useLoad } from './load.ts';
import { Failed, Loading, NotFound } from './messages.tsx';
import { OrdersTable } from './orders-table.tsx';
import { userPath } from './router.ts';

/** A user's orders, newest first, a page at a time. */
export function UserView({ userId, page, limit }: { userId: string; page: number; limit: number }) {
  const loaded = useLoad(async () => dataOf(await query(USER_ORDERS_QUERY, { userId, page, limit })).ordersByUser, [userId, page, limit]);
  const heading = (
    <h2 id="user-heading">
      User <span class="mono">{userId}</span>
    </h2>
  );
  if (loaded.state === 'loading') return <Loading what="the user's orders" />;
  if (loaded.state === 'failed') return <Failed message={loaded.message} />;
  const orders = loaded.value;
  if (orders.total === 0)
    return (
      <section aria-labelledby="user-heading">
        {heading}
        <NotFound>This user has no orders.</NotFound>
      </section>
    );
  return (
    <section aria-labelledby="user-heading">
      {heading}
      <p>
        {orders.total} {orders.total === 1 ? 'order' : 'orders'}; page {orders.page} of {orders.totalPages}.
      </p>
      {orders.data.length > 0 ? (
        <OrdersTable orders={orders.data} caption={`Orders, newest first (page ${orders.page})`} showUser={false} />
      ) : (
        <NotFound>This page is past the last one.</NotFound>
      )}
      <nav class="pager" aria-label="Pages">
        {page > 1 && <Link href={userPath(userId, Math.min(page - 1, orders.totalPages), limit)}>Newer orders</Link>}
        {page < orders.totalPages && <Link href={userPath(userId, page + 1, limit)}>Older orders</Link>}
      </nav>
    </section>
  );
}
