import { requireWriter } from '../http/api-keys.ts';
import { parseInput } from '../domain/input.ts';
import { SubmitClaimSchema, findClaim, requestClaim } from '../relayer/claims.ts';
import { builder } from './builder.ts';

const ClaimStatusEnum = builder.enumType('ClaimStatus', {
  values: {
    QUEUED: { value: 'queued' },
    SUBMITTED: { value: 'submitted' },
    CONFIRMED: { value: 'confirmed' },
    FAILED: { value: 'failed' },
  } as const,
});

/** The relayer's view of a claim. The secret it holds is deliberately not a field. */
builder.prismaObject('RelayerClaim', {
  description: 'A destination claim the relayer makes for a user.',
  fields: (t) => ({
    orderId: t.exposeString('orderId'),
    status: t.expose('status', { type: ClaimStatusEnum }),
    chain: t.exposeString('chain'),
    txHash: t.exposeString('txHash', { nullable: true }),
    attempts: t.exposeInt('attempts'),
    lastError: t.exposeString('lastError', { nullable: true, description: 'Why the last attempt failed.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const SubmitClaimInput = builder.inputType('SubmitClaimInput', {
  fields: (t) => ({
    orderId: t.string({ required: true }),
    commitment: t.string({ required: true, description: 'The secret, 32 bytes hex.' }),
  }),
});

builder.queryFields((t) => ({
  claim: t.prismaField({
    type: 'RelayerClaim',
    nullable: true,
    args: { orderId: t.arg.string({ required: true }) },
    resolve: (_query, _root, args, ctx) => findClaim(ctx, args.orderId),
  }),
}));

builder.mutationFields((t) => ({
  submitClaim: t.prismaField({
    type: 'RelayerClaim',
    description: 'Asks the relayer to claim the destination escrow for the user. Repeats are idempotent.',
    args: { input: t.arg({ type: SubmitClaimInput, required: true }) },
    resolve: (_query, _root, { input }, ctx) => {
      requireWriter(ctx);
      return requestClaim(ctx, parseInput(SubmitClaimSchema, input));
    },
  }),
}));
