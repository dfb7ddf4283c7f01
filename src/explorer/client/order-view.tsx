import { useEffect, useState } from 'preact/hooks';
import {
  CLAIM_QUERY,
  ORDER_DETAIL_QUERY,
  ORDER_UPDATED_SUBSCRIPTION,
  type IntentDetail,
  type OrderDetail,
  type RelayerClaim,
} from '../documents.ts';
import { type ApiResult, ApiFailure, fieldError, query, subscribe } from './api.ts';
import { statusClass, time } from './format.ts';
import { Link } from './link.tsx';
import { useLoad } from './load.ts';
import { Failed, Loading, NotFound } from './messages.tsx';
import { txPath, userPath } from './router.ts';
import { timeline } from './timeline.ts';

/** "No claim" is an answer (the user claims themselves, or has not asked yet); any other error is not. */
function claimOf(result: ApiResult<{ claim: RelayerClaim | null }>): RelayerClaim | null {
  const error = fieldError(result, 'claim');
  if (error && error.extensions?.code !== 'NOT_FOUND') throw new ApiFailure(error.message, error.extensions?.code);
  return result.data?.claim ?? null;
}

async function loadOrder(orderId: string): Promise<{ order: OrderDetail; claim: RelayerClaim | null } | undefined> {
  const result = await query(ORDER_DETAIL_QUERY, { orderId });
  const error = fieldError(result, 'order');
  // An id that cannot exist is refused as malformed: to the reader, that order is simply not there.
  if (error && (error.extensions?.code === 'NOT_FOUND' || error.extensions?.code === 'BAD_REQUEST')) return undefined;
  if (!result.data?.order) throw new ApiFailure(error?.message ?? result.errors[0]?.message ?? 'The server answered without the order.');
  return { order: result.data.order, claim: claimOf(result) };
}

export function OrderView({ orderId }: { orderId: string }) {
  const loaded = useLoad(() => loadOrder(orderId), [orderId]);
  if (loaded.state === 'loading') return <Loading what="the order" />;
  if (loaded.state === 'failed') return <Failed message={loaded.message} />;
  if (!loaded.value)
    return (
      <NotFound>
        No order has the id <span class="mono">{orderId}</span>.
      </NotFound>
    );
  return <LiveOrder key={orderId} initial={loaded.value.order} initialClaim={loaded.value.claim} />;
}

/** The order, kept current by the orderUpdated subscription (each escrow event and claim change). */
function LiveOrder({ initial, initialClaim }: { initial: OrderDetail; initialClaim: RelayerClaim | null }) {
  const [order, setOrder] = useState(initial);
  const [claim, setClaim] = useState(initialClaim);
  const [lost, setLost] = useState(false);
  useEffect(() => {
    return subscribe(
      ORDER_UPDATED_SUBSCRIPTION,
      { orderId: initial.orderId },
      (data) => {
        setOrder(data.orderUpdated);
        query(CLAIM_QUERY, { orderId: initial.orderId }).then(
          (result) => setClaim(claimOf(result)),
          () => {},
        );
      },
      () => setLost(true),
    );
  }, [initial.orderId]);
  const events = timeline(order);
  return (
    <article aria-labelledby="order-heading">
      <h2 id="order-heading">
        Order <span class="mono">{order.orderId}</span>
      </h2>
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <output class={statusClass(order.status)} aria-live="polite" data-testid="order-status">
            {order.status}
          </output>{' '}
          <span class="note">{lost ? 'live updates stopped: reload to resume' : 'updates live'}</span>
        </dd>
        <dt>User</dt>
        <dd>
          <Link href={userPath(order.userId)}>{order.userId}</Link>
        </dd>
        <dt>Created</dt>
        <dd>{time(order.createdAt)}</dd>
        <dt>Last change</dt>
        <dd>{time(order.updatedAt)}</dd>
      </dl>
      <div class="intents">
        <IntentCard title="Source intent" intent={order.sourceIntent} />
        <IntentCard title="Destination intent" intent={order.destinationIntent} />
      </div>
      <section aria-labelledby="timeline-heading">
        <h3 id="timeline-heading">Escrow events</h3>
        {events.length === 0 ? (
          <p class="note">No escrow event yet.</p>
        ) : (
          <table class="timeline">
            <thead>
              <tr>
                <th scope="col">Kind</th>
                <th scope="col">Escrow</th>
                <th scope="col">Chain</th>
                <th scope="col">Transaction</th>
                <th scope="col">Block</th>
                <th scope="col">Time</th>
              </tr>
            </thead>
            <tbody>
              {events.map((event) => (
                <tr key={`${event.side}-${event.kind}`}>
                  <td>{event.kind}</td>
                  <td>{event.side}</td>
                  <td>{event.chain}</td>
                  <td>
                    <Link href={txPath(event.txHash)} class="mono">
                      {event.txHash}
                    </Link>
                  </td>
                  <td>{event.block ?? '—'}</td>
                  <td>{time(event.at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section aria-labelledby="claim-heading">
        <h3 id="claim-heading">Relayer claim</h3>
        {claim ? (
          <dl class="facts" data-testid="claim">
            <dt>State</dt>
            <dd>
              <span class="status">{claim.status}</span>
            </dd>
            <dt>Transaction</dt>
            <dd class="mono">{claim.txHash ?? '—'}</dd>
            <dt>Attempts</dt>
            <dd>{claim.attempts}</dd>
            {claim.lastError && (
              <>
                <dt>Last error</dt>
                <dd>{claim.lastError}</dd>
              </>
            )}
            <dt>Last change</dt>
            <dd>{time(claim.updatedAt)}</dd>
          </dl>
        ) : (
          <p class="note" data-testid="claim">
            No relayer claim requested.
          </p>
        )}
      </section>
    </article>
  );
}

function IntentCard({ title, intent }: { title: string; intent: IntentDetail }) {
  return (
    <section class="intent" aria-label={title}>
      <h3>{title}</h3>
      <dl class="facts">
        <dt>Chain</dt>
        <dd>{intent.chain}</dd>
        <dt>Amount</dt>
        <dd>
          {intent.amount} <span class="asset">{intent.asset}</span> <span class="note">(base units)</span>
        </dd>
        <dt>Swap id</dt>
        <dd class="mono">{intent.swapId}</dd>
        <dt>Creator</dt>
        <dd class="mono">{intent.creator}</dd>
        <dt>Recipient</dt>
        <dd class="mono">{intent.recipient}</dd>
        <dt>Cancel after</dt>
        <dd>{time(new Date(intent.cancelAfter * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'))}</dd>
      </dl>
    </section>
  );
}
