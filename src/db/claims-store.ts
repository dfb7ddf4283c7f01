import type { PrismaClient } from '../generated/prisma/client.ts';
import type { ClaimsStore } from '../domain/stores.ts';

/** Relayer claims for the API; the relayer's worker leases and updates them with its own statements (src/relayer/worker.ts). */
export function createClaimsStore(prisma: PrismaClient): ClaimsStore {
  return {
    orderForClaim: (orderId) =>
      prisma.order.findUnique({ where: { id: orderId }, include: { destinationIntent: true, relayerClaim: true } }),
    async queueOnce(claim) {
      await prisma.relayerClaim.createMany({ data: [claim], skipDuplicates: true });
      return prisma.relayerClaim.findUniqueOrThrow({ where: { orderId: claim.orderId } });
    },
    byOrderId: (orderId) => prisma.relayerClaim.findUnique({ where: { orderId } }),
  };
}
