import { ORDERS_BY_TX_QUERY } from '../documents.ts';
import { dataOf, query } from './api.ts';
import { useLoad } from './load.ts';
import { Failed, Loading, NotFound } from './messages.tsx';
import { OrderView } from './order-view.tsx';
import { OrdersTable } from './orders-table.tsx';

/** The orders a transaction belongs to (create, claim, cancel or bridge of either escrow); one is shown whole. */
export function TransactionView({ hash }: { hash: string }) {
  const loaded = useLoad(async () => {
    const result = await query(ORDERS_BY_TX_QUERY, { txHash: hash });
    // A hash no chain could have made matches nothing.
    if (!result.data && result.errors.every((error) => error.extensions?.code === 'BAD_REQUEST')) return [];
    return dataOf(result).orders.data;
  }, [hash]);
  if (loaded.state === 'loading') return <Loading what="the transaction's orders" />;
  if (loaded.state === 'failed') return <Failed message={loaded.message} />;
  const orders = loaded.value;
  return (
    <section aria-labelledby="tx-heading">
      <h2 id="tx-heading">
        Transaction <span class="mono">{hash}</span>
      </h2>
      {orders.length === 0 && <NotFound>No order has this transaction.</NotFound>}
      {orders.length > 1 && <OrdersTable orders={orders} caption="Orders with this transaction" />}
      {orders.length === 1 && <OrderView orderId={orders[0]!.orderId} />}
    </section>
  );
}
