import type { Prisma, Stage } from '../../generated/prisma/client.ts';

/**
 * The order status machine.
 *
 * A status has two parts: the stage, which follows from on-chain facts alone and is stored on the
 * order whenever an event changes them, and the clock, which turns a stage into `expired` or
 * `refunding` once a deadline passes. Every form of the clock part lives in this folder: the
 * function (statusAt), the Prisma filter (statusWhere), the SQL expressions (statusSql, and
 * clockTurnedSql for what the clock changed between two times), the statistics' bucket rule
 * (stageBucket), and the counts from the rollups (count.ts, live-pending.ts; the rollups are kept by
 * the stats trigger). test/status.test.ts holds each form against statusAt
 * on one grid of orders.
 */

export const ORDER_STATUSES = [
  'pending',
  'source_created',
  'destination_created',
  'destination_claimed',
  'completed',
  'refunding',
  'cancelled',
  'expired',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export type StatusBucket = 'completed' | 'in_progress' | 'cancelled';

export const STATUS_BUCKET: Record<OrderStatus, StatusBucket> = {
  pending: 'in_progress',
  source_created: 'in_progress',
  destination_created: 'in_progress',
  destination_claimed: 'completed',
  completed: 'completed',
  refunding: 'in_progress',
  cancelled: 'cancelled',
  expired: 'cancelled',
};

export interface EscrowFacts {
  created: boolean;
  claimed: boolean;
  cancelled: boolean;
  /** Created after the order's deadline (on-chain time): too late to start the swap. */
  late?: boolean;
}

/** The stage from on-chain facts only; precedence follows the contract's table. */
export function deriveStage(source: EscrowFacts, destination: EscrowFacts): Stage {
  // A source cancel after the user already claimed the destination still completed the swap for the user.
  if (source.cancelled) return destination.claimed ? 'completed' : 'cancelled';
  // A source claim reveals the secret publicly, so the user can always claim: the swap is done.
  if (source.claimed) return 'completed';
  if (destination.claimed) return 'destination_claimed';
  // `expired` is "no source escrow before the deadline": a late one does not revive the order,
  // unless the solver went ahead and funded the destination anyway.
  if (!source.created || (source.late && !destination.created)) return 'pending';
  if (destination.cancelled) return 'refunding';
  return destination.created ? 'destination_created' : 'source_created';
}

export interface ClockInputs {
  stage: Stage;
  /** No source escrow by then: expired. */
  deadlineAt: Date;
  /** The destination's cancel_after: past it, an unclaimed destination can no longer be trusted. */
  destExpiresAt: Date;
}

/** Stages the clock can overtake while the destination is still unclaimed. */
export const AWAITING_DESTINATION = ['source_created', 'destination_created'] as const satisfies readonly Stage[];

export function statusAt(order: ClockInputs, now: Date): OrderStatus {
  if (order.stage === 'pending') return now >= order.deadlineAt ? 'expired' : 'pending';
  if ((AWAITING_DESTINATION as readonly Stage[]).includes(order.stage) && now >= order.destExpiresAt) return 'refunding';
  return order.stage;
}

/**
 * The same rule as an SQL expression over an order row (`alias`), at `now` (an SQL expression of type
 * timestamptz, the caller's clock): for pages PostgreSQL renders (src/rest/rendered-pages.ts).
 */
export function statusSql(alias: string, now: string): string {
  const awaiting = AWAITING_DESTINATION.map((stage) => `'${stage}'`).join(', ');
  return `CASE WHEN ${alias}.stage = 'pending' THEN CASE WHEN ${now} >= ${alias}.deadline_at THEN 'expired' ELSE 'pending' END
    WHEN ${alias}.stage IN (${awaiting}) AND ${now} >= ${alias}.dest_expires_at THEN 'refunding'
    ELSE ${alias}.stage::text END`;
}

/**
 * The orders whose status the clock turned between `from` (excluded) and `now` (included), as an SQL
 * condition over an order row (`alias`); `from` and `now` are SQL expressions of type timestamptz. Each
 * of the clock's turns is narrowed to its stage and its deadline first, which the (stage, deadline)
 * indexes serve; the statuses at both times then decide, by the rule itself. The webhook sweep announces
 * these (src/webhooks/worker.ts).
 */
export function clockTurnedSql(alias: string, from: string, now: string): string {
  const awaiting = AWAITING_DESTINATION.map((stage) => `'${stage}'`).join(', ');
  const crossed = (deadline: string) => `${alias}.${deadline} > ${from} AND ${alias}.${deadline} <= ${now}`;
  return `((${alias}.stage = 'pending' AND ${crossed('deadline_at')})
      OR (${alias}.stage IN (${awaiting}) AND ${crossed('dest_expires_at')}))
    AND ${statusSql(alias, from)} <> ${statusSql(alias, now)}`;
}

/** When the clock turned (or turns) an order `alias`: its deadline while pending, else its destination's expiry. */
export const clockTurnAtSql = (alias: string) =>
  `CASE WHEN ${alias}.stage = 'pending' THEN ${alias}.deadline_at ELSE ${alias}.dest_expires_at END`;

/**
 * When each order of clockTurnedSql turned (`at`), at most `limit` per stage and earliest first: the same
 * orders, split by the deadline each stage crosses, so that each part is read in deadline order from its
 * (stage, deadline) index and stops at `limit` (the webhook sweep's steps), never sorting the whole backlog.
 */
export function clockTurnTimesSql(alias: string, from: string, now: string, limit: string): string {
  const changed = `${statusSql(alias, from)} <> ${statusSql(alias, now)}`;
  const part = (stage: string, deadline: string) =>
    `(SELECT ${alias}.${deadline} AS at FROM orders ${alias}
      WHERE ${alias}.stage = '${stage}' AND ${alias}.${deadline} > ${from} AND ${alias}.${deadline} <= ${now} AND ${changed}
      ORDER BY ${alias}.${deadline} LIMIT ${limit})`;
  return [part('pending', 'deadline_at'), ...AWAITING_DESTINATION.map((stage) => part(stage, 'dest_expires_at'))].join('\n    UNION ALL ');
}

/** The same rule as a Prisma filter, for listing by status. */
export function statusWhere(status: OrderStatus, now: Date): Prisma.OrderWhereInput {
  switch (status) {
    case 'pending':
      return { stage: 'pending', deadlineAt: { gt: now } };
    case 'expired':
      return { stage: 'pending', deadlineAt: { lte: now } };
    case 'source_created':
    case 'destination_created':
      return { stage: status, destExpiresAt: { gt: now } };
    case 'refunding':
      return {
        OR: [{ stage: 'refunding' }, { stage: { in: [...AWAITING_DESTINATION] }, destExpiresAt: { lte: now } }],
      };
    default:
      return { stage: status };
  }
}

/**
 * The statistics bucket of every order of a stage, given how many of them the clock has turned:
 * stored stage counts plus the number of `pending` orders past their deadline are all the
 * statistics need, because the clock's other turn (to `refunding`) never changes the bucket.
 */
export function stageBucket(stage: Stage, expired: boolean): StatusBucket {
  return STATUS_BUCKET[stage === 'pending' && expired ? 'expired' : stage];
}

// The claim above, checked where it is made: refunding by the clock must stay in its stages' bucket.
for (const stage of AWAITING_DESTINATION) {
  if (STATUS_BUCKET[stage] !== STATUS_BUCKET.refunding) {
    throw new Error(`statistics assume ${stage} and refunding share a bucket (src/domain/stats.ts)`);
  }
}
