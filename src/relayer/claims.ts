import type { z } from 'zod';
import type { RelayerClaim } from '../generated/prisma/client.ts';
import type { DomainDeps } from '../domain/deps.ts';
import { BadRequestError, ConflictError, NotFoundError } from '../domain/errors.ts';
import { secretMatches } from '../domain/escrow-events.ts';
import { hex32, object, text } from '../domain/input.ts';
import { orderIdOrNotFound } from '../domain/orders.ts';

/**
 * Claim requests to the relayer (README, Lifecycle and relayer). A request is accepted only when the destination escrow
 * can still be claimed with this secret; it is stored before the 202 and processed by the worker.
 */

export const SubmitClaimSchema = object({ orderId: text(66), commitment: hex32 });

export type SubmitClaimCommand = z.output<typeof SubmitClaimSchema>;

export async function requestClaim(deps: DomainDeps, request: SubmitClaimCommand): Promise<RelayerClaim> {
  const orderId = orderIdOrNotFound(request.orderId);
  const order = await deps.claims.orderForClaim(orderId);
  if (!order) throw new NotFoundError(`order ${request.orderId} not found`);
  if (!secretMatches(request.commitment, order.commitmentHash)) {
    throw new BadRequestError("commitment does not hash to the order's commitment_hash");
  }
  // A repeat of an accepted request is answered with the stored claim, whatever happened since.
  if (order.relayerClaim) return order.relayerClaim;

  const destination = order.destinationIntent;
  if (destination.createTxHash === null) throw new ConflictError('the destination escrow is not created yet');
  if (destination.claimTxHash !== null) throw new ConflictError('the destination escrow is already claimed');
  if (destination.cancelTxHash !== null) throw new ConflictError('the destination escrow is cancelled');
  if (BigInt(Math.floor(deps.now().getTime() / 1000)) >= destination.cancelAfter) {
    throw new ConflictError("the destination escrow's cancel_after has passed: it can no longer be claimed safely");
  }
  // Concurrent identical requests: one insert wins, the others read it.
  return deps.claims.queueOnce({
    orderId,
    commitment: request.commitment,
    chain: destination.chain,
    swapId: destination.swapId,
    nextAttemptAt: deps.now(),
  });
}

export async function findClaim(deps: Pick<DomainDeps, 'claims'>, orderIdInput: string): Promise<RelayerClaim> {
  const orderId = orderIdOrNotFound(orderIdInput);
  const claim = await deps.claims.byOrderId(orderId);
  if (!claim) throw new NotFoundError(`no claim for order ${orderIdInput}`);
  return claim;
}
