import type { Logger } from 'pino';
import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';
import { PollingLoop } from '../polling-loop.ts';
import { claimEvent } from '../domain/webhook-events.ts';
import { TransientChainError, type ChainAdapter } from './chain-adapter.ts';

export interface RelayerWorkerOptions {
  prisma: PrismaClient;
  adapter: ChainAdapter;
  logger: Logger;
  now: () => Date;
  /** How often to look for work. */
  pollMs?: number;
  /** How long a worker holds a claim it took; another instance takes over after it lapses. */
  leaseMs?: number;
  maxAttempts?: number;
  /** First retry delay; doubles each attempt. */
  backoffMs?: number;
  /** A submitted claim not seen on chain by then is failed. */
  confirmTimeoutMs?: number;
  /** Told each claim's outcome (the metrics count them). */
  onOutcome?: (outcome: 'submitted' | 'retried' | 'failed' | 'confirmed') => void;
}

interface LeasedClaim {
  order_id: string;
  lease_token: string;
  commitment: string;
  chain: string;
  swap_id: string;
  attempts: number;
}

/**
 * Processes stored claims: submits queued ones through the chain adapter, then confirms them when
 * the destination claim is seen on chain. A claim is leased with FOR UPDATE SKIP LOCKED, so with
 * several instances each claim is taken by exactly one; once submitted it is never sent again.
 * Leases are timed by the database clock (instances' clocks may disagree) and fenced by a token:
 * a worker that stalled past its lease, while another took the claim over, writes nothing.
 */
export class RelayerWorker extends PollingLoop {
  private readonly leaseMs: number;
  private readonly maxAttempts: number;
  private readonly backoffMs: number;
  private readonly confirmTimeoutMs: number;

  constructor(private readonly options: RelayerWorkerOptions) {
    super({ name: 'relayer', intervalMs: options.pollMs ?? 250, logger: options.logger });
    this.leaseMs = options.leaseMs ?? 30_000;
    this.maxAttempts = options.maxAttempts ?? 5;
    this.backoffMs = options.backoffMs ?? 1_000;
    this.confirmTimeoutMs = options.confirmTimeoutMs ?? 10 * 60_000;
  }

  /** One round: submit what is due, confirm what was submitted. Returns how many claims moved. */
  async tick(): Promise<number> {
    let moved = 0;
    for (let claim = await this.lease(); claim; claim = await this.lease()) {
      await this.submit(claim);
      moved++;
    }
    moved += await this.confirmSubmitted();
    return moved;
  }

  private async lease(): Promise<LeasedClaim | undefined> {
    const now = this.options.now();
    const rows = await this.options.prisma.$queryRaw<LeasedClaim[]>`
      UPDATE relayer_claims
      SET lease_until = clock_timestamp() + make_interval(secs => ${this.leaseMs / 1000}::double precision),
          lease_token = gen_random_uuid(), attempts = attempts + 1, updated_at = ${now}
      WHERE order_id = (
        SELECT order_id FROM relayer_claims
        WHERE status = 'queued' AND next_attempt_at <= ${now} AND (lease_until IS NULL OR lease_until < clock_timestamp())
        ORDER BY next_attempt_at LIMIT 1
        FOR UPDATE SKIP LOCKED)
      RETURNING order_id, lease_token::text AS lease_token, commitment, chain, swap_id, attempts`;
    return rows[0];
  }

  private async submit(claim: LeasedClaim): Promise<void> {
    const { prisma, adapter, logger } = this.options;
    const intent = await prisma.intent.findUniqueOrThrow({ where: { swapId: claim.swap_id } });
    const log = logger.child({ orderId: claim.order_id, chain: claim.chain, attempt: claim.attempts });
    // Every write of the outcome releases the lease, and happens only while this worker still holds it.
    const settle = async (data: Prisma.RelayerClaimUpdateManyMutationInput) => {
      const count = await settleClaim(
        prisma,
        { orderId: claim.order_id, leaseToken: claim.lease_token },
        { ...data, leaseUntil: null, leaseToken: null },
      );
      if (count === 0) log.warn('lease lost while submitting; another instance took the claim over, outcome not recorded');
      return count === 1;
    };
    try {
      const { txHash } = await adapter.submitClaim({
        chain: claim.chain,
        swapId: claim.swap_id,
        secret: claim.commitment,
        registryAddress: intent.registryAddress,
        createBlockNumber: intent.createBlockNumber ?? 0n,
      });
      if (await settle({ status: 'submitted', txHash, submittedAt: this.options.now(), lastError: null })) {
        log.info({ txHash }, 'claim submitted');
        this.options.onOutcome?.('submitted');
      }
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const retry = error instanceof TransientChainError && claim.attempts < this.maxAttempts;
      const delay = this.backoffMs * 2 ** (claim.attempts - 1);
      const recorded = await settle(
        retry
          ? { status: 'queued', lastError: reason, nextAttemptAt: new Date(this.options.now().getTime() + delay) }
          : { status: 'failed', lastError: reason },
      );
      if (recorded) {
        log.warn({ reason, retryInMs: retry ? delay : undefined }, retry ? 'claim submission failed; will retry' : 'claim failed');
        this.options.onOutcome?.(retry ? 'retried' : 'failed');
      }
    }
  }

  /** A submitted claim is confirmed once the destination claim is recorded (watcher or simulated chain). */
  private async confirmSubmitted(): Promise<number> {
    const { prisma, adapter } = this.options;
    const submitted = await prisma.relayerClaim.findMany({
      where: { status: 'submitted' },
      select: {
        orderId: true,
        chain: true,
        txHash: true,
        submittedAt: true,
        order: { select: { destinationIntent: { select: { claimTxHash: true, cancelTxHash: true } } } },
      },
      take: 100,
    });
    let moved = 0;
    for (const claim of submitted) {
      let outcome: { status: 'confirmed' | 'failed'; lastError?: string } | undefined;
      const destination = claim.order.destinationIntent;
      if (destination.claimTxHash !== null) {
        outcome = { status: 'confirmed' };
      } else if (destination.cancelTxHash !== null) {
        // Its funds went back to the solver: the claim can never land, so the user hears now, not at the timeout.
        outcome = { status: 'failed', lastError: 'the destination escrow was cancelled' };
      } else {
        const tx = await adapter.transactionState(claim.chain, claim.txHash!);
        if (tx.state === 'failed') outcome = { status: 'failed', lastError: tx.reason };
        else if (claim.submittedAt && this.options.now().getTime() - claim.submittedAt.getTime() > this.confirmTimeoutMs) {
          outcome = { status: 'failed', lastError: `not seen on chain within ${this.confirmTimeoutMs / 1000} s` };
        }
      }
      if (!outcome) continue;
      // Conditional: of two instances confirming together, one moves it.
      const count = await settleClaim(
        prisma,
        { orderId: claim.orderId, status: 'submitted' },
        { status: outcome.status, lastError: outcome.lastError ?? null },
      );
      moved += count;
      if (count > 0) this.options.onOutcome?.(outcome.status);
    }
    return moved;
  }
}

/**
 * The conditional update of a claim; when it moves the claim to an outcome, the webhook outbox row
 * (claim.confirmed / claim.failed) commits with it (src/domain/webhook-events.ts).
 */
async function settleClaim(
  prisma: PrismaClient,
  where: Prisma.RelayerClaimWhereInput & { orderId: string },
  data: Prisma.RelayerClaimUpdateManyMutationInput,
): Promise<number> {
  return prisma.$transaction(async (tx) => {
    const { count } = await tx.relayerClaim.updateMany({ where, data });
    if (count === 1 && (data.status === 'confirmed' || data.status === 'failed')) {
      const order = await tx.order.findUniqueOrThrow({
        where: { id: where.orderId },
        select: { id: true, userId: true, sourceChain: true, destChain: true },
      });
      // createMany: the outbox drops an event no endpoint wants, and create would then have no row to return.
      await tx.webhookEvent.createMany({ data: [claimEvent(order, data.status)] });
    }
    return count;
  });
}
