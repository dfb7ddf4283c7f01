import type { Prisma, PrismaClient, WebhookEndpoint } from '../generated/prisma/client.ts';

/** A delivery with its event's type and every attempt, as the GraphQL type reads it. */
export type DeliveryWithAttempts = Prisma.WebhookDeliveryGetPayload<{
  include: { event: { select: { type: true } }; attemptLog: true };
}>;

/**
 * The webhook endpoints' rows and their deliveries: the only reader and writer of them for the API
 * (src/webhooks/endpoints.ts holds the rules: ownership, the cap, the secret's grace). The delivery worker keeps
 * its own statements (src/webhooks/worker.ts): it leases rows in bulk.
 */
export interface WebhookEndpointsStore {
  /**
   * Stores the endpoint unless its owner has `cap` endpoints already (null then). The count and the insert
   * run under one lock per owner (a transaction-scoped advisory lock), so concurrent registrations by one
   * key, on any instance, each see the ones before them and the cap holds (a count before an insert would not).
   */
  insertUnderCap(endpoint: Prisma.WebhookEndpointCreateInput, cap: number): Promise<WebhookEndpoint | null>;
  /** The owner's endpoints, newest first. */
  list(owner: string): Promise<WebhookEndpoint[]>;
  /** The endpoint when `owner` owns it, else null. */
  ownedEndpoint(owner: string, id: string): Promise<WebhookEndpoint | null>;
  /** Deletes the endpoint (its deliveries go with it) when `owner` owns it. */
  delete(owner: string, id: string): Promise<void>;
  /** A new secret; the one before it keeps signing until `previousSecretUntil`. */
  rotate(id: string, secrets: { secret: string; previousSecret: string; previousSecretUntil: Date }): Promise<WebhookEndpoint>;
  /** An endpoint's deliveries, newest first, each with its attempts (oldest first). */
  deliveries(endpointId: string, limit: number): Promise<DeliveryWithAttempts[]>;
  /** One delivery of the endpoint, or null. */
  delivery(endpointId: string, deliveryId: string): Promise<{ eventId: string; eventSeq: bigint; orderId: string } | null>;
  /**
   * A new delivery (id `deliveryId`) of the event `original` delivered, due now, and the endpoint
   * enabled again, in one transaction.
   */
  redeliver(
    endpointId: string,
    deliveryId: string,
    original: { eventId: string; eventSeq: bigint; orderId: string },
  ): Promise<DeliveryWithAttempts>;
}

export function createWebhookEndpointsStore(prisma: PrismaClient): WebhookEndpointsStore {
  return {
    insertUnderCap: (data, cap) =>
      prisma.$transaction(async (tx) => {
        const { owner } = data;
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`webhook-endpoints:${owner}`}, 0))`;
        const count = await tx.webhookEndpoint.count({ where: { owner } });
        if (count >= cap) return null;
        return tx.webhookEndpoint.create({ data });
      }),
    list: (owner) => prisma.webhookEndpoint.findMany({ where: { owner }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] }),
    ownedEndpoint: (owner, id) => prisma.webhookEndpoint.findFirst({ where: { id, owner } }),
    async delete(owner, id) {
      await prisma.webhookEndpoint.deleteMany({ where: { id, owner } });
    },
    rotate: (id, secrets) => prisma.webhookEndpoint.update({ where: { id }, data: secrets }),
    deliveries: (endpointId, limit) =>
      prisma.webhookDelivery.findMany({
        where: { endpointId },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take: limit,
        include: { event: { select: { type: true } }, attemptLog: { orderBy: { id: 'asc' } } },
      }),
    delivery: (endpointId, deliveryId) => prisma.webhookDelivery.findFirst({ where: { id: deliveryId, endpointId } }),
    async redeliver(endpointId, deliveryId, original) {
      const [, delivery] = await prisma.$transaction([
        prisma.webhookEndpoint.update({ where: { id: endpointId }, data: { disabledAt: null, disabledReason: null, failingSince: null } }),
        prisma.webhookDelivery.create({
          data: { id: deliveryId, endpointId, eventId: original.eventId, eventSeq: original.eventSeq, orderId: original.orderId },
          include: { event: { select: { type: true } }, attemptLog: true },
        }),
      ]);
      return delivery;
    },
  };
}
