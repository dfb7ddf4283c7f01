import type { Logger } from 'pino';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { PollingLoop } from '../polling-loop.ts';

/**
 * Keeps the monthly partitions of orders and intents made ahead of time (README, Deployment: Data that
 * grows): each round makes any missing month from this one to `monthsAhead` months on, with
 * ensure_month_partitions (prisma/migrations/20261124020000_monthly_partitions). Rows of a month not made
 * land in the default partitions and are never refused; a round that finds rows there says so, since
 * that month can then only be made by hand.
 */
export class PartitionKeeper extends PollingLoop {
  constructor(private readonly options: { prisma: PrismaClient; logger: Logger; monthsAhead?: number; intervalMs?: number }) {
    super({ name: 'partition keeper', intervalMs: options.intervalMs ?? 60 * 60_000, logger: options.logger });
  }

  /** One round: the months made, and whether a default partition holds rows. */
  async tick(): Promise<{ made: number; defaultRows: boolean }> {
    const monthsAhead = this.options.monthsAhead ?? 3;
    const made = await this.options.prisma.$transaction(async (tx) => {
      // Making a partition locks its parent, and every query on it queues behind the wait: give up at once
      // behind other work and try again next round (the months are made three ahead).
      await tx.$executeRawUnsafe(`SET LOCAL lock_timeout = '100ms'`);
      const [row] = await tx.$queryRaw<[{ made: number }]>`
        SELECT ensure_month_partitions(now(), now() + make_interval(months => ${monthsAhead}::int)) AS made`;
      return row.made;
    });
    if (made > 0) this.options.logger.info({ made }, 'monthly partitions made');
    const [{ crowded }] = await this.options.prisma.$queryRaw<[{ crowded: boolean }]>`
      SELECT EXISTS (SELECT FROM orders_default) OR EXISTS (SELECT FROM intents_default) AS crowded`;
    if (crowded) {
      this.options.logger.warn('orders_default or intents_default holds rows: see README, Deployment (Data that grows)');
    }
    return { made, defaultRows: crowded };
  }
}
