import type { OrderSummary } from '../documents.ts';
import { time, statusClass } from './format.ts';
import { Link } from './link.tsx';
import { orderPath, userPath } from './router.ts';

/** A list of orders, each linking to its order view and its user. */
export function OrdersTable({ orders, caption, showUser = true }: { orders: OrderSummary[]; caption: string; showUser?: boolean }) {
  return (
    <table class="orders">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Order</th>
          <th scope="col">Status</th>
          <th scope="col">From</th>
          <th scope="col">To</th>
          {showUser && <th scope="col">User</th>}
          <th scope="col">Created</th>
        </tr>
      </thead>
      <tbody>
        {orders.map((order) => (
          <tr key={order.orderId}>
            <td>
              <Link href={orderPath(order.orderId)} class="mono">
                {order.orderId}
              </Link>
            </td>
            <td>
              <span class={statusClass(order.status)}>{order.status}</span>
            </td>
            <td>
              {order.sourceIntent.amount} <span class="asset">{order.sourceIntent.asset}</span>
            </td>
            <td>
              {order.destinationIntent.amount} <span class="asset">{order.destinationIntent.asset}</span>
            </td>
            {showUser && (
              <td>
                <Link href={userPath(order.userId)}>{order.userId}</Link>
              </td>
            )}
            <td>{time(order.createdAt)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
