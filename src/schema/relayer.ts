import { requireWriter } from '../http/api-keys.ts';
import { parseInput } from '../domain/input.ts';
import { SubmitClaimSchema, findClaim, requestClaim } from '../relayer/claims.ts';
import { builder } from './builder.ts';

const ClaimStatusEnum = builder.enumType('ClaimStatus', {
  description: 'Where a relayer claim is: queued -> submitted -> confirmed, or failed.',
  values: {
    QUEUED: { value: 'queued', description: 'Stored; the worker has not sent it yet (or will retry after a transient chain error).' },
    SUBMITTED: { value: 'submitted', description: 'Sent to the destination chain; waiting to see the claim on chain.' },
    CONFIRMED: { value: 'confirmed', description: 'The destination claim is on chain.' },
    FAILED: {
      value: 'failed',
      description: 'Given up: lastError says why (escrow cancelled or expired, reverted, retries exhausted, not seen in time).',
    },
  } as const,
});

/** The relayer's view of a claim. The secret it holds is deliberately not a field. */
builder.prismaObject('RelayerClaim', {
  description: 'A destination claim the relayer makes for a user.',
  fields: (t) => ({
    orderId: t.exposeString('orderId', { description: 'The order whose destination escrow is claimed (one claim per order).' }),
    status: t.expose('status', { description: 'Where the claim is.', type: ClaimStatusEnum }),
    chain: t.exposeString('chain', { description: 'The destination chain.' }),
    txHash: t.exposeString('txHash', { description: 'The claim transaction, once submitted.', nullable: true }),
    attempts: t.exposeInt('attempts', { description: 'How many times the worker has tried to send it.' }),
    lastError: t.exposeString('lastError', { nullable: true, description: 'Why the last attempt failed.' }),
    createdAt: t.expose('createdAt', { description: 'When the claim was requested.', type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { description: 'Last change of status or attempt.', type: 'DateTime' }),
  }),
});

const SubmitClaimInput = builder.inputType('SubmitClaimInput', {
  description: 'Which order to claim for, and the secret that unlocks its destination escrow.',
  fields: (t) => ({
    orderId: t.string({ description: "The order's id.", required: true }),
    commitment: t.string({ required: true, description: 'The secret, 32 bytes hex.' }),
  }),
});

builder.queryFields((t) => ({
  claim: t.prismaField({
    description: "The relayer's claim for an order (`GET /relayer/claims/{order_id}`); NOT_FOUND when none was requested.",
    type: 'RelayerClaim',
    nullable: true,
    args: { orderId: t.arg.string({ description: "The order's id.", required: true }) },
    resolve: (_query, _root, args, ctx) => findClaim(ctx, args.orderId),
  }),
}));

builder.mutationFields((t) => ({
  submitClaim: t.prismaField({
    type: 'RelayerClaim',
    description: 'Asks the relayer to claim the destination escrow for the user. Repeats are idempotent.',
    args: { input: t.arg({ description: 'The order and its secret.', type: SubmitClaimInput, required: true }) },
    resolve: (_query, _root, { input }, ctx) => {
      requireWriter(ctx);
      return requestClaim(ctx, parseInput(SubmitClaimSchema, input));
    },
  }),
}));
