import { builder } from './builder.ts';

/** Decimal columns print as plain integer strings, never in exponent form. */
const decimalText = (value: { toFixed(): string } | null) => (value === null ? null : value.toFixed());

/** One escrow side of an order. On-chain fields stay null until their event arrives. */
export const Intent = builder.prismaObject('Intent', {
  description: 'One escrow side of an order: the user\'s source escrow or the solver\'s destination escrow.',
  fields: (t) => ({
    swapId: t.exposeString('swapId', { description: 'Escrow id, derived from the escrow parameters.' }),
    chain: t.exposeString('chain'),
    asset: t.exposeString('asset'),
    tokenAddress: t.exposeString('tokenAddress'),
    creator: t.exposeString('creator'),
    recipient: t.exposeString('recipient'),
    amount: t.string({ description: 'Base units, decimal string.', resolve: (i) => i.amount.toFixed() }),
    commitmentHash: t.exposeString('commitmentHash'),
    commitment: t.exposeString('commitment', {
      nullable: true,
      description: 'The secret; null until a claim reveals it on chain.',
    }),
    cancelAfter: t.field({ type: 'SafeInt', description: 'UNIX time in seconds.', resolve: (i) => i.cancelAfter }),
    registryAddress: t.exposeString('registryAddress', { nullable: true }),
    createTxHash: t.exposeString('createTxHash', { nullable: true }),
    createBlockNumber: t.field({ type: 'SafeInt', nullable: true, resolve: (i) => i.createBlockNumber }),
    createTimestamp: t.expose('createTimestamp', { type: 'DateTime', nullable: true }),
    claimTxHash: t.exposeString('claimTxHash', { nullable: true }),
    claimBlockNumber: t.field({ type: 'SafeInt', nullable: true, resolve: (i) => i.claimBlockNumber }),
    claimTimestamp: t.expose('claimTimestamp', { type: 'DateTime', nullable: true }),
    cancelTxHash: t.exposeString('cancelTxHash', { nullable: true }),
    cancelBlockNumber: t.field({ type: 'SafeInt', nullable: true, resolve: (i) => i.cancelBlockNumber }),
    cancelTimestamp: t.expose('cancelTimestamp', { type: 'DateTime', nullable: true }),
    l1Hop: t.exposeBoolean('l1Hop'),
    hopBridgeFactory: t.exposeString('hopBridgeFactory', { nullable: true }),
    hopDestBlockchainId: t.exposeString('hopDestBlockchainId', { nullable: true }),
    hopRecipient: t.exposeString('hopRecipient', { nullable: true }),
    hopFeeToken: t.exposeString('hopFeeToken', { nullable: true }),
    hopRelayerFee: t.string({ nullable: true, resolve: (i) => decimalText(i.hopRelayerFee) }),
    finalChain: t.exposeString('finalChain', { nullable: true }),
    finalTokenAddress: t.exposeString('finalTokenAddress', { nullable: true }),
    bridgeTxHash: t.exposeString('bridgeTxHash', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});
