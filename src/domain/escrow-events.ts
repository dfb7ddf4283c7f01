import { createHash, timingSafeEqual } from 'node:crypto';
import type { Intent, Stage } from '../generated/prisma/client.ts';
import type { DomainDeps } from './deps.ts';
import type { EscrowEventWrite, OrderWithIntents } from './stores.ts';
import { z } from 'zod';
import { orderStatusEvent } from './webhook-events.ts';
import { ConflictError, NotFoundError } from './errors.ts';
import { hex32, isoSeconds, object, text, timestamp } from './input.ts';
import { deriveStage, statusAt, type EscrowFacts } from './status/rule.ts';

/**
 * Escrow events from the chains: a watcher, or the relayer's chain adapter, reports
 * that an escrow was created, claimed or cancelled. Events are facts, so only what no chain can
 * produce for one escrow is refused (409, nothing changed); the same event again is a no-op.
 */

export const ESCROW_EVENT_KINDS = ['create', 'claim', 'cancel'] as const;
export type EscrowEventKind = (typeof ESCROW_EVENT_KINDS)[number];

export interface EscrowEvent {
  kind: EscrowEventKind;
  txHash: string;
  blockNumber: bigint;
  timestamp: Date;
  /** The revealed secret, required for a claim. */
  commitment?: string;
}

const TX_HASH = /^(?:0x)?[0-9a-zA-Z]{8,128}$/;
const BLOCK_NUMBER_RULE = 'must be a non-negative integer';

/** An escrow event as a watcher reports it (the swap id is the path, or its own GraphQL field). */
export const EscrowEventSchema = object({
  kind: z.enum(ESCROW_EVENT_KINDS, {
    error: (issue) => (issue.input == null ? 'is required' : `must be one of ${ESCROW_EVENT_KINDS.join(', ')}`),
  }),
  txHash: text(130)
    .regex(TX_HASH, { error: 'must be a transaction hash (8 to 128 letters or digits, optional 0x)', abort: true })
    // Hex is stored in lowercase (0x-hex, and 64-hex txids): lookups by hash compare that spelling (registry/tx-hashes.ts).
    .transform((value) => (value.startsWith('0x') || /^[0-9a-fA-F]{64}$/.test(value) ? value.toLowerCase() : value)),
  blockNumber: z
    .int({ error: BLOCK_NUMBER_RULE })
    .nonnegative({ error: BLOCK_NUMBER_RULE, abort: true })
    .transform((value) => BigInt(value)),
  timestamp: timestamp.refine((date) => date.getMilliseconds() === 0, { error: 'must be in whole seconds', abort: true }),
  commitment: hex32.nullish(),
}).transform((input, ctx): EscrowEvent => {
  const { commitment, ...event } = input;
  if (event.kind !== 'claim') {
    if (commitment != null) ctx.issues.push({ code: 'custom', path: ['commitment'], message: 'is only sent with a claim', input });
    return event;
  }
  if (commitment == null) ctx.issues.push({ code: 'custom', path: ['commitment'], message: 'is required', input });
  return { ...event, commitment: commitment ?? undefined };
});

/** sha256(bytes(secret)) == commitment_hash, compared in constant time. */
export function secretMatches(secretHex: string, commitmentHash: string): boolean {
  const digest = createHash('sha256').update(Buffer.from(secretHex, 'hex')).digest();
  return timingSafeEqual(digest, Buffer.from(commitmentHash, 'hex'));
}

interface RecordedFacts {
  txHash: string | null;
  blockNumber: bigint | null;
  timestamp: Date | null;
}

/** Where each kind of event is recorded on an intent (its create/claim/cancel columns). */
const COLUMNS = {
  create: { txHash: 'createTxHash', blockNumber: 'createBlockNumber', timestamp: 'createTimestamp' },
  claim: { txHash: 'claimTxHash', blockNumber: 'claimBlockNumber', timestamp: 'claimTimestamp' },
  cancel: { txHash: 'cancelTxHash', blockNumber: 'cancelBlockNumber', timestamp: 'cancelTimestamp' },
} as const;

/** An escrow's recorded events, as stored on its intent (and as the bulk seed builds them). */
export type EscrowRecord = Pick<
  Intent,
  | 'side'
  | 'commitmentHash'
  | 'commitment'
  | 'updatedAt'
  | 'createTxHash'
  | 'createBlockNumber'
  | 'createTimestamp'
  | 'claimTxHash'
  | 'claimBlockNumber'
  | 'claimTimestamp'
  | 'cancelTxHash'
  | 'cancelBlockNumber'
  | 'cancelTimestamp'
>;

function recorded(intent: EscrowRecord, kind: EscrowEventKind): RecordedFacts {
  const columns = COLUMNS[kind];
  return { txHash: intent[columns.txHash], blockNumber: intent[columns.blockNumber], timestamp: intent[columns.timestamp] };
}

function sameEvent(facts: RecordedFacts, event: EscrowEvent): boolean {
  return (
    facts.txHash === event.txHash && facts.blockNumber === event.blockNumber && facts.timestamp?.getTime() === event.timestamp.getTime()
  );
}

/**
 * Checks an event against what is recorded for its escrow. Returns false for an exact repeat
 * (no-op), true when it is new and consistent, and throws 409 when no chain could produce it.
 */
function admit(intent: EscrowRecord, event: EscrowEvent): boolean {
  const existing = recorded(intent, event.kind);
  if (existing.txHash !== null) {
    if (sameEvent(existing, event)) return false;
    throw new ConflictError(`the ${intent.side} escrow already has a different ${event.kind} (tx ${existing.txHash})`);
  }
  if (event.kind === 'create') {
    for (const later of ['claim', 'cancel'] as const) {
      const facts = recorded(intent, later);
      if (facts.blockNumber !== null && facts.blockNumber < event.blockNumber) {
        throw new ConflictError(`the ${intent.side} escrow's ${later} is in an earlier block than this create`);
      }
      if (facts.timestamp !== null && facts.timestamp < event.timestamp) {
        throw new ConflictError(`the ${intent.side} escrow's ${later} is dated ${isoSeconds(facts.timestamp)}, before this create`);
      }
    }
    return true;
  }
  if (intent.createTxHash === null || intent.createBlockNumber === null) {
    throw new ConflictError(`a ${event.kind} cannot come before the ${intent.side} escrow's create`);
  }
  if (event.blockNumber < intent.createBlockNumber) {
    throw new ConflictError(`a ${event.kind} cannot be in an earlier block than the ${intent.side} escrow's create`);
  }
  if (intent.createTimestamp !== null && event.timestamp < intent.createTimestamp) {
    throw new ConflictError(
      `a ${event.kind} cannot be dated before the ${intent.side} escrow's create (${isoSeconds(intent.createTimestamp)})`,
    );
  }
  const other = event.kind === 'claim' ? 'cancel' : 'claim';
  if (recorded(intent, other).txHash !== null) {
    throw new ConflictError(`the ${intent.side} escrow was already ${other === 'claim' ? 'claimed' : 'cancelled'}`);
  }
  if (event.kind === 'claim' && !secretMatches(event.commitment!, intent.commitmentHash)) {
    throw new ConflictError("commitment does not hash to the escrow's commitment_hash");
  }
  return true;
}

/** What the stage rule needs to know about one escrow. */
function factsOf(intent: Pick<Intent, 'createTxHash' | 'claimTxHash' | 'cancelTxHash' | 'createTimestamp'>, deadlineAt: Date): EscrowFacts {
  return {
    created: intent.createTxHash !== null,
    claimed: intent.claimTxHash !== null,
    cancelled: intent.cancelTxHash !== null,
    late: intent.createTimestamp !== null && intent.createTimestamp > deadlineAt,
  };
}

function eventFields(event: EscrowEvent) {
  const columns = COLUMNS[event.kind];
  return { [columns.txHash]: event.txHash, [columns.blockNumber]: event.blockNumber, [columns.timestamp]: event.timestamp };
}

export interface AppliedEvent<R extends EscrowRecord> {
  source: R;
  destination: R;
  stage: Stage;
  /** When the destination was claimed: the swap is done for the user. */
  completedAt: Date | null;
}

/**
 * One escrow event applied to an order's two escrows, without I/O (ingestion and the bulk seed
 * both use it): null for an exact repeat, which changes nothing; the escrows as they become and the
 * order's stage otherwise; a ConflictError when no chain could produce the event.
 */
export function applyEscrowEvent<R extends EscrowRecord>(
  order: { deadlineAt: Date; source: R; destination: R },
  side: 'source' | 'destination',
  event: EscrowEvent,
  now: Date,
): AppliedEvent<R> | null {
  if (!admit(order[side], event)) return null;
  const updated: R = { ...order[side], ...eventFields(event), updatedAt: now };
  let source = side === 'source' ? updated : order.source;
  let destination = side === 'destination' ? updated : order.destination;
  if (event.kind === 'claim') {
    // A claim reveals the secret on chain: from now on both intents show it.
    source = { ...source, commitment: event.commitment!, updatedAt: now };
    destination = { ...destination, commitment: event.commitment!, updatedAt: now };
  }
  const stage = deriveStage(factsOf(source, order.deadlineAt), factsOf(destination, order.deadlineAt));
  return { source, destination, stage, completedAt: destination.claimTimestamp };
}

export interface RecordedEvent {
  orderId: string;
  /** False for an exact repeat of a recorded event. */
  changed: boolean;
}

/**
 * What an escrow event writes to the order holding its escrow (`swapId`), read under the order's lock:
 * null for an exact repeat; a ConflictError when no chain could produce the event.
 */
function escrowEventWrite(order: OrderWithIntents, swapId: string, event: EscrowEvent, now: Date): EscrowEventWrite | null {
  const intent = [order.sourceIntent, order.destinationIntent].find((one) => one.swapId === swapId)!;
  const escrows = { deadlineAt: order.deadlineAt, source: order.sourceIntent, destination: order.destinationIntent };
  const applied = applyEscrowEvent(escrows, intent.side, event, now);
  if (!applied) return null;
  const { stage } = applied;
  const before = statusAt(order, now);
  const after = statusAt({ ...order, stage }, now);
  return {
    intent: { ...eventFields(event), updatedAt: now },
    revealed: event.kind === 'claim' ? { commitment: event.commitment!, updatedAt: now } : undefined,
    order: { stage, completedAt: applied.completedAt, updatedAt: now },
    outbox: after !== before ? orderStatusEvent(order, after, before) : undefined,
  };
}

/** Records one escrow event, moves the order's stage, and announces the change. */
export async function recordEscrowEvent(deps: DomainDeps, swapIdInput: string, event: EscrowEvent): Promise<RecordedEvent> {
  const swapId = swapIdInput.toLowerCase().replace(/^0x/, '');
  if (!/^[0-9a-f]{64}$/.test(swapId)) throw new NotFoundError(`intent ${swapIdInput} not found`);

  // The decision, and the clock it reads, run under the order's lock.
  const result = await deps.escrow.applyLocked(swapId, (order) => escrowEventWrite(order, swapId, event, deps.now()));
  if (!result) throw new NotFoundError(`intent ${swapIdInput} not found`);

  const { order, written } = result;
  if (written) deps.events.orderChanged({ orderId: order.id, userId: order.userId });
  return { orderId: order.id, changed: written };
}
