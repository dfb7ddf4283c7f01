import { createHash, timingSafeEqual } from 'node:crypto';
import type { Intent, Prisma } from '../generated/prisma/client.ts';
import type { DomainDeps } from './deps.ts';
import { DomainError, badRequest, notFound } from './errors.ts';
import { requireHex32, requireObject, requireString, requireTimestamp } from './input.ts';
import { deriveStage, statusAt, type EscrowFacts } from './status.ts';
import { orderStatusEvent } from '../webhooks/outbox.ts';

/**
 * Escrow events from the chains (CONTRACT 4.3): a watcher, or the relayer's chain adapter, reports
 * that an escrow was created, claimed or cancelled. Events are facts, so only what no chain can
 * produce for one escrow is refused (409, nothing changed); the same event again is a no-op.
 */

export type EscrowEventKind = 'create' | 'claim' | 'cancel';

export interface EscrowEvent {
  kind: EscrowEventKind;
  txHash: string;
  blockNumber: bigint;
  timestamp: Date;
  /** The revealed secret, required for a claim. */
  commitment?: string;
}

const KINDS: readonly EscrowEventKind[] = ['create', 'claim', 'cancel'];
const TX_HASH = /^(?:0x)?[0-9a-zA-Z]{8,128}$/;

export function parseEscrowEvent(body: unknown): EscrowEvent {
  const input = requireObject(body, 'body');
  const kind = requireString(input.kind, 'kind', 16);
  if (!(KINDS as readonly string[]).includes(kind)) throw badRequest('kind must be one of create, claim, cancel');
  const txHash = requireString(input.tx_hash, 'tx_hash', 130);
  if (!TX_HASH.test(txHash)) throw badRequest('tx_hash must be a transaction hash (8 to 128 letters or digits, optional 0x)');
  const blockNumber = input.block_number;
  if (typeof blockNumber !== 'number' || !Number.isSafeInteger(blockNumber) || blockNumber < 0) {
    throw badRequest('block_number must be a non-negative integer');
  }
  const timestamp = requireTimestamp(input.timestamp, 'timestamp');
  if (timestamp.getMilliseconds() !== 0) throw badRequest('timestamp must be in whole seconds');
  const event: EscrowEvent = {
    kind: kind as EscrowEventKind,
    txHash: txHash.startsWith('0x') ? txHash.toLowerCase() : txHash,
    blockNumber: BigInt(blockNumber),
    timestamp,
  };
  if (event.kind === 'claim') event.commitment = requireHex32(input.commitment, 'commitment');
  else if (input.commitment != null) throw badRequest('commitment is only sent with a claim');
  return event;
}

/** sha256(bytes(secret)) == commitment_hash, compared in constant time. */
export function secretMatches(secretHex: string, commitmentHash: string): boolean {
  const digest = createHash('sha256').update(Buffer.from(secretHex, 'hex')).digest();
  return timingSafeEqual(digest, Buffer.from(commitmentHash, 'hex'));
}

const refuse = (message: string) => new DomainError('CONFLICT', message);

interface RecordedFacts {
  txHash: string | null;
  blockNumber: bigint | null;
  timestamp: Date | null;
}

/** Where each kind of event is recorded on an intent (seed 2.2's create/claim/cancel columns). */
const COLUMNS = {
  create: { txHash: 'createTxHash', blockNumber: 'createBlockNumber', timestamp: 'createTimestamp' },
  claim: { txHash: 'claimTxHash', blockNumber: 'claimBlockNumber', timestamp: 'claimTimestamp' },
  cancel: { txHash: 'cancelTxHash', blockNumber: 'cancelBlockNumber', timestamp: 'cancelTimestamp' },
} as const;

function recorded(intent: Intent, kind: EscrowEventKind): RecordedFacts {
  const columns = COLUMNS[kind];
  return { txHash: intent[columns.txHash], blockNumber: intent[columns.blockNumber], timestamp: intent[columns.timestamp] };
}

function sameEvent(facts: RecordedFacts, event: EscrowEvent): boolean {
  return (
    facts.txHash === event.txHash &&
    facts.blockNumber === event.blockNumber &&
    facts.timestamp?.getTime() === event.timestamp.getTime()
  );
}

/**
 * Checks an event against what is recorded for its escrow. Returns false for an exact repeat
 * (no-op), true when it is new and consistent, and throws 409 when no chain could produce it.
 */
function admit(intent: Intent, event: EscrowEvent): boolean {
  const existing = recorded(intent, event.kind);
  if (existing.txHash !== null) {
    if (sameEvent(existing, event)) return false;
    throw refuse(`the ${intent.side} escrow already has a different ${event.kind} (tx ${existing.txHash})`);
  }
  if (event.kind === 'create') {
    for (const later of ['claim', 'cancel'] as const) {
      const block = recorded(intent, later).blockNumber;
      if (block !== null && block < event.blockNumber) {
        throw refuse(`the ${intent.side} escrow's ${later} is in an earlier block than this create`);
      }
    }
    return true;
  }
  if (intent.createTxHash === null || intent.createBlockNumber === null) {
    throw refuse(`a ${event.kind} cannot come before the ${intent.side} escrow's create`);
  }
  if (event.blockNumber < intent.createBlockNumber) {
    throw refuse(`a ${event.kind} cannot be in an earlier block than the ${intent.side} escrow's create`);
  }
  const other = event.kind === 'claim' ? 'cancel' : 'claim';
  if (recorded(intent, other).txHash !== null) {
    throw refuse(`the ${intent.side} escrow was already ${other === 'claim' ? 'claimed' : 'cancelled'}`);
  }
  if (event.kind === 'claim' && !secretMatches(event.commitment!, intent.commitmentHash)) {
    throw refuse('commitment does not hash to the escrow\'s commitment_hash');
  }
  return true;
}

/** What the stage rule needs to know about one escrow. */
export function factsOf(intent: Pick<Intent, 'createTxHash' | 'claimTxHash' | 'cancelTxHash' | 'createTimestamp'>, deadlineAt: Date): EscrowFacts {
  return {
    created: intent.createTxHash !== null,
    claimed: intent.claimTxHash !== null,
    cancelled: intent.cancelTxHash !== null,
    late: intent.createTimestamp !== null && intent.createTimestamp > deadlineAt,
  };
}

function eventFields(event: EscrowEvent): Prisma.IntentUpdateInput {
  const columns = COLUMNS[event.kind];
  return { [columns.txHash]: event.txHash, [columns.blockNumber]: event.blockNumber, [columns.timestamp]: event.timestamp };
}

export interface RecordedEvent {
  orderId: string;
  /** False for an exact repeat of a recorded event. */
  changed: boolean;
}

/** Records one escrow event, moves the order's stage, and announces the change. */
export async function recordEscrowEvent(deps: DomainDeps, swapIdInput: string, body: unknown): Promise<RecordedEvent> {
  const swapId = swapIdInput.toLowerCase().replace(/^0x/, '');
  if (!/^[0-9a-f]{64}$/.test(swapId)) throw notFound(`intent ${swapIdInput} not found`);
  const event = parseEscrowEvent(body);

  const result = await deps.prisma.$transaction(async (tx) => {
    const intent = await tx.intent.findUnique({
      where: { swapId },
      include: { sourceOf: { select: { id: true } }, destinationOf: { select: { id: true } } },
    });
    const orderId = intent?.sourceOf?.id ?? intent?.destinationOf?.id;
    if (!intent || !orderId) throw notFound(`intent ${swapIdInput} not found`);
    // One writer per order at a time: both escrows' events decide the stage together.
    await tx.$queryRaw`SELECT id FROM orders WHERE id = ${orderId} FOR UPDATE`;
    const order = await tx.order.findUniqueOrThrow({
      where: { id: orderId },
      include: { sourceIntent: true, destinationIntent: true },
    });
    const current = intent.side === 'source' ? order.sourceIntent : order.destinationIntent;
    if (!admit(current, event)) return { orderId, userId: order.userId, changed: false };

    const now = deps.now();
    const updated = await tx.intent.update({ where: { swapId }, data: { ...eventFields(event), updatedAt: now } });
    if (event.kind === 'claim') {
      // A claim reveals the secret on chain: from now on both intents show it.
      await tx.intent.updateMany({
        where: { swapId: { in: [order.sourceSwapId, order.destinationSwapId] } },
        data: { commitment: event.commitment, updatedAt: now },
      });
    }
    const source = intent.side === 'source' ? updated : order.sourceIntent;
    const destination = intent.side === 'destination' ? updated : order.destinationIntent;
    const stage = deriveStage(factsOf(source, order.deadlineAt), factsOf(destination, order.deadlineAt));
    await tx.order.update({
      where: { id: orderId },
      data: { stage, completedAt: destination.claimTimestamp, updatedAt: now },
    });
    // The webhook outbox row commits with the change, or neither does (src/webhooks/outbox.ts).
    const before = statusAt(order, now);
    const after = statusAt({ ...order, stage }, now);
    if (after !== before) await tx.webhookEvent.create({ data: orderStatusEvent(order, after, before) });
    return { orderId, userId: order.userId, changed: true };
  });

  if (result.changed) deps.events.orderChanged({ orderId: result.orderId, userId: result.userId });
  return { orderId: result.orderId, changed: result.changed };
}
