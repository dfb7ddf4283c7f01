import { builder } from './builder.ts';

/** Decimal columns print as plain integer strings, never in exponent form. */
const decimalText = (value: { toFixed(): string } | null) => (value === null ? null : value.toFixed());

/** One escrow side of an order. On-chain fields stay null until their event arrives. */
export const Intent = builder.prismaObject('Intent', {
  description: "One escrow side of an order: the user's source escrow or the solver's destination escrow.",
  fields: (t) => ({
    swapId: t.exposeString('swapId', { description: 'Escrow id, derived from the escrow parameters.' }),
    chain: t.exposeString('chain', { description: 'Chain id of the escrow.' }),
    asset: t.exposeString('asset', { description: 'Asset id, chain:token.' }),
    tokenAddress: t.exposeString('tokenAddress', { description: "The token's address on the chain (`native` for the chain's coin)." }),
    creator: t.exposeString('creator', {
      description: 'Who funds the escrow: the user on the source side, the solver on the destination side.',
    }),
    recipient: t.exposeString('recipient', {
      description: 'Who may claim it with the secret: the solver on the source side, the user on the destination side.',
    }),
    amount: t.string({ description: 'Base units, decimal string.', resolve: (i) => i.amount.toFixed() }),
    commitmentHash: t.exposeString('commitmentHash', {
      description: 'sha256 of the secret, 64 lowercase hex characters; the same on both intents.',
    }),
    commitment: t.exposeString('commitment', {
      nullable: true,
      description: 'The secret; null until a claim reveals it on chain.',
    }),
    cancelAfter: t.field({ type: 'SafeInt', description: 'UNIX time in seconds.', resolve: (i) => i.cancelAfter }),
    registryAddress: t.exposeString('registryAddress', {
      description: 'The escrow contract the escrow lives in, when the chain has one.',
      nullable: true,
    }),
    createTxHash: t.exposeString('createTxHash', { description: 'Transaction that created the escrow; null until seen.', nullable: true }),
    createBlockNumber: t.field({
      description: 'Block of that transaction.',
      type: 'SafeInt',
      nullable: true,
      resolve: (i) => i.createBlockNumber,
    }),
    createTimestamp: t.expose('createTimestamp', { description: 'Time of that block.', type: 'DateTime', nullable: true }),
    claimTxHash: t.exposeString('claimTxHash', {
      description: 'Transaction that claimed the escrow (revealing the secret); null until seen.',
      nullable: true,
    }),
    claimBlockNumber: t.field({
      description: 'Block of that transaction.',
      type: 'SafeInt',
      nullable: true,
      resolve: (i) => i.claimBlockNumber,
    }),
    claimTimestamp: t.expose('claimTimestamp', { description: 'Time of that block.', type: 'DateTime', nullable: true }),
    cancelTxHash: t.exposeString('cancelTxHash', {
      description: 'Transaction that cancelled (refunded) the escrow after cancelAfter; null until seen.',
      nullable: true,
    }),
    cancelBlockNumber: t.field({
      description: 'Block of that transaction.',
      type: 'SafeInt',
      nullable: true,
      resolve: (i) => i.cancelBlockNumber,
    }),
    cancelTimestamp: t.expose('cancelTimestamp', { description: 'Time of that block.', type: 'DateTime', nullable: true }),
    l1Hop: t.exposeBoolean('l1Hop', {
      description: 'Whether the funds hop through a layer-1 bridge (from the original data model; false for orders made here).',
    }),
    hopBridgeFactory: t.exposeString('hopBridgeFactory', { description: 'Bridge factory of the hop, when there is one.', nullable: true }),
    hopDestBlockchainId: t.exposeString('hopDestBlockchainId', {
      description: 'Destination blockchain id of the hop, when there is one.',
      nullable: true,
    }),
    hopRecipient: t.exposeString('hopRecipient', { description: 'Recipient of the hop, when there is one.', nullable: true }),
    hopFeeToken: t.exposeString('hopFeeToken', {
      description: "Token the hop's relayer fee is paid in, when there is one.",
      nullable: true,
    }),
    hopRelayerFee: t.string({
      description: "The hop's relayer fee, base units, decimal string.",
      nullable: true,
      resolve: (i) => decimalText(i.hopRelayerFee),
    }),
    finalChain: t.exposeString('finalChain', { description: 'Chain the funds end on after the hop, when there is one.', nullable: true }),
    finalTokenAddress: t.exposeString('finalTokenAddress', {
      description: 'Token the funds end as after the hop, when there is one.',
      nullable: true,
    }),
    bridgeTxHash: t.exposeString('bridgeTxHash', { description: 'Bridge transaction of the hop, when there is one.', nullable: true }),
    createdAt: t.expose('createdAt', { description: 'When the intent was recorded (with its order).', type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', {
      description: "Last change: an escrow event, or the secret revealed by the other side's claim.",
      type: 'DateTime',
    }),
  }),
});
