import type { Database } from '../../../src/db/database.ts';
import type { DomainDeps } from '../../../src/domain/deps.ts';
import { recordEscrowEvent } from '../../../src/domain/escrow-events.ts';
import { createOrder } from '../../../src/domain/orders.ts';
import { createQuote } from '../../../src/domain/quotes.ts';
import type { Plan } from './plan.ts';
import { type Progress, requestsOf, type SeedClock, type Seeded } from './requests.ts';

/** Seeding through the domain rules: every quote, order and escrow event by the domain calls, one at a time. */
export async function seedThroughDomain(db: Database, deps: DomainDeps, clock: SeedClock, plan: Plan, progress: Progress): Promise<Seeded> {
  const orderIds: string[] = [];
  let events = 0;
  const every = Math.max(1, Math.round(plan.orders.length / 10));
  for (const [index, order] of plan.orders.entries()) {
    const requests = requestsOf(order);
    clock.at(order.createdAt - order.quoteLead);
    const quote = await createQuote(deps, requests.quote);
    clock.at(order.createdAt);
    const { orderId } = await createOrder(deps, requests.order(quote.id, BigInt(quote.destAmount.toFixed())));
    orderIds.push(orderId);

    if (order.events.length > 0) {
      const { sourceSwapId, destinationSwapId } = await db.prisma.order.findUniqueOrThrow({
        where: { id: orderId },
        select: { sourceSwapId: true, destinationSwapId: true },
      });
      for (const { side, seenAt, event } of requests.events) {
        clock.at(seenAt);
        await recordEscrowEvent(deps, side === 'source' ? sourceSwapId : destinationSwapId, event);
        events++;
      }
    }
    if ((index + 1) % every === 0 || index + 1 === plan.orders.length) progress(index + 1, events);
  }
  // Read back what the product stored.
  const stored = new Map<string, Seeded['rows'][number]>();
  for (let i = 0; i < orderIds.length; i += 1000) {
    const rows = await db.prisma.order.findMany({
      where: { id: { in: orderIds.slice(i, i + 1000) } },
      select: { id: true, stage: true, deadlineAt: true, destExpiresAt: true },
    });
    for (const row of rows) stored.set(row.id, row);
  }
  return { orderIds, rows: orderIds.map((id) => stored.get(id)!), events };
}
