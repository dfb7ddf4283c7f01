import { randomBytes } from 'node:crypto';
import type { Prisma } from '../generated/prisma/client.ts';

/**
 * The transactional outbox: each change that integrators hear about writes one `webhook_events`
 * row in the same transaction as the change itself, so a crash between the change and the
 * delivery loses nothing (the worker finds the row after a restart). Written from:
 * - order creation (src/db/row-store.ts, in the creating statement),
 * - escrow-event ingestion (src/domain/escrow-events.ts, in its transaction),
 * - the relayer's claim outcome (src/relayer/worker.ts, with the conditional update),
 * - the clock sweep for `expired` and time-based `refunding` (src/webhooks/worker.ts).
 */

export const WEBHOOK_EVENT_TYPES = ['order.status_changed', 'claim.confirmed', 'claim.failed'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

type IdPrefix = 'msg' | 'dlv' | 'ep';

/** Ids in Standard Webhooks' style: a prefix and 128 random bits, base64url. */
export const newId = (prefix: IdPrefix) => `${prefix}_${randomBytes(16).toString('base64url')}`;

/**
 * The same id made by the database, for rows a statement inserts by the thousand (the fan-out's
 * deliveries): a random UUID's 16 bytes in base64url (122 random bits; its version bits are fixed).
 */
export const newIdSql = (prefix: IdPrefix) =>
  `'${prefix}_' || rtrim(translate(encode(uuid_send(gen_random_uuid()), 'base64'), '+/', '-_'), '=')`;

export interface OrderKeys {
  id: string;
  userId: string;
  sourceChain: string;
  destChain: string;
}

export function orderStatusEvent(order: OrderKeys, status: string, previousStatus: string | null): Prisma.WebhookEventCreateManyInput {
  return {
    id: newId('msg'),
    type: 'order.status_changed',
    orderId: order.id,
    userId: order.userId,
    sourceChain: order.sourceChain,
    destChain: order.destChain,
    status,
    previousStatus,
  };
}

export function claimEvent(order: OrderKeys, outcome: 'confirmed' | 'failed'): Prisma.WebhookEventCreateManyInput {
  return {
    id: newId('msg'),
    type: outcome === 'confirmed' ? 'claim.confirmed' : 'claim.failed',
    orderId: order.id,
    userId: order.userId,
    sourceChain: order.sourceChain,
    destChain: order.destChain,
    status: outcome,
    previousStatus: null,
  };
}
