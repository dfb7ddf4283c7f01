import type { PrismaClient, Stage } from '../../generated/prisma/client.ts';
import { countLivePending } from './live-pending.ts';
import { AWAITING_DESTINATION, statusWhere, type OrderStatus } from './rule.ts';

/**
 * How many orders have any of these statuses, without counting the book (a COUNT over half a
 * million completed orders costs more than the page itself): stage totals come from the statistics
 * rollup; the clock's part from the pending rollup (live-pending.ts) and from the orders
 * awaiting their destination before it expires (index on stage, dest_expires_at). Equal to
 * count({ where: statusWhere }) by construction; test/stats-rollups.test.ts checks it.
 */
export async function countByStatus(prisma: PrismaClient, statuses: OrderStatus[] | 'all', now: Date): Promise<number> {
  const rows = await prisma.$queryRaw<{ stage: Stage; orders: string }[]>`
    SELECT stage::text AS stage, sum(orders)::text AS orders FROM stats_hourly_live GROUP BY stage`;
  const stageTotal = (stage: Stage) => Number(rows.find((row) => row.stage === stage)?.orders ?? 0);
  if (statuses === 'all') return rows.reduce((sum, row) => sum + Number(row.orders), 0);
  // Orders of a stage the clock has not turned yet: pending before the deadline, awaiting before dest expiry.
  const notTurned = (stage: (typeof AWAITING_DESTINATION)[number]) => prisma.order.count({ where: statusWhere(stage, now) });
  // Read once, though `pending` and `expired` may both ask.
  let live: Promise<number> | undefined;
  const livePending = () => (live ??= countLivePending(prisma, now, { all: null }).then((counts) => counts.all));
  const counts = await Promise.all(
    statuses.map(async (status): Promise<number> => {
      switch (status) {
        case 'pending':
          return livePending();
        case 'source_created':
        case 'destination_created':
          return notTurned(status);
        case 'expired':
          return stageTotal('pending') - (await livePending());
        case 'refunding': {
          const turned = await Promise.all(AWAITING_DESTINATION.map(async (stage) => stageTotal(stage) - (await notTurned(stage))));
          return stageTotal('refunding') + turned.reduce((a, b) => a + b, 0);
        }
        default:
          return stageTotal(status);
      }
    }),
  );
  return counts.reduce((a, b) => a + b, 0);
}
