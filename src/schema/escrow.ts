import { UnauthenticatedError } from '../domain/errors.ts';
import { EscrowEventSchema, recordEscrowEvent } from '../domain/escrow-events.ts';
import { parseInput } from '../domain/input.ts';
import { builder } from './builder.ts';
import { Order, orderOrThrow } from './order.ts';

const EscrowEventKind = builder.enumType('EscrowEventKind', {
  description: 'What happened to an escrow on its chain.',
  values: {
    CREATE: { value: 'create', description: 'The escrow was funded.' },
    CLAIM: { value: 'claim', description: 'The escrow was claimed with the secret (carry it in `commitment`).' },
    CANCEL: { value: 'cancel', description: 'The escrow was refunded to its creator after cancelAfter.' },
  } as const,
});

const RecordEscrowEventInput = builder.inputType('RecordEscrowEventInput', {
  description: 'One event of one escrow, as a chain watcher saw it.',
  fields: (t) => ({
    swapId: t.string({ required: true, description: 'Which intent: the escrow id.' }),
    kind: t.field({ description: 'What happened.', type: EscrowEventKind, required: true }),
    txHash: t.string({ description: 'The transaction, hex.', required: true }),
    blockNumber: t.field({ description: 'Its block number.', type: 'SafeInt', required: true }),
    timestamp: t.field({ type: 'DateTime', required: true, description: 'Block time, whole seconds.' }),
    commitment: t.string({ required: false, description: 'The revealed secret; required for a claim.' }),
  }),
});

builder.mutationFields((t) => ({
  recordEscrowEvent: t.field({
    type: Order,
    description: 'An escrow event from a chain watcher (needs the watcher key). Returns the updated order.',
    args: { input: t.arg({ description: 'The event.', type: RecordEscrowEventInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      if (!ctx.isWatcher) throw new UnauthenticatedError('recording escrow events needs Authorization: Bearer <WATCHER_KEY>');
      const { swapId, ...event } = input;
      const { orderId } = await recordEscrowEvent(ctx, swapId, parseInput(EscrowEventSchema, event));
      // Read where it was just written: a replica may not have replayed the event yet.
      ctx.reads.pinPrimary();
      return orderOrThrow(ctx, orderId);
    },
  }),
}));
