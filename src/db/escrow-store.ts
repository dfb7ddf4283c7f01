import type { PrismaClient } from '../generated/prisma/client.ts';
import type { EscrowEventStore } from '../domain/stores.ts';

/** Escrow events applied in one transaction each, under a lock on their order (src/domain/escrow-events.ts decides). */
export function createEscrowEventStore(prisma: PrismaClient): EscrowEventStore {
  return {
    applyLocked: (swapId, decide) =>
      prisma.$transaction(async (tx) => {
        // swap_keys names the order and its month: the lock looks in one partition. The month stays in SQL, never
        // a parameter (a time sent back would be read in the session's time zone).
        const [locked] = await tx.$queryRaw<{ id: string }[]>`
          SELECT o.id FROM swap_keys k JOIN orders o ON o.id = k.order_id AND o.created_at = k.created_at
          WHERE k.swap_id = ${swapId} FOR UPDATE OF o`;
        // An archived month keeps its keys but not its rows (README, Deployment).
        if (!locked) return null;
        // One writer per order at a time (the lock above): both escrows' events decide the stage together.
        const order = await tx.order.findUniqueOrThrow({
          where: { id: locked.id },
          include: { sourceIntent: true, destinationIntent: true },
        });
        const write = decide(order);
        if (!write) return { order, written: false };

        await tx.intent.update({ where: { swapId }, data: write.intent });
        if (write.revealed) {
          await tx.intent.updateMany({
            where: { swapId: { in: [order.sourceSwapId, order.destinationSwapId] } },
            data: write.revealed,
          });
        }
        await tx.order.update({ where: { id: order.id }, data: write.order });
        // The webhook outbox row commits with the change, or neither does (src/domain/webhook-events.ts).
        // createMany: the outbox drops an event no endpoint wants, and create would then have no row to return.
        if (write.outbox) await tx.webhookEvent.createMany({ data: [write.outbox] });
        return { order, written: true };
      }),
  };
}
