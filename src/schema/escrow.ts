import { UnauthenticatedError } from '../domain/errors.ts';
import { ESCROW_EVENT_KINDS, EscrowEventSchema, recordEscrowEvent } from '../domain/escrow-events.ts';
import { parseInput } from '../domain/input.ts';
import { builder } from './builder.ts';

const EscrowEventKind = builder.enumType('EscrowEventKind', {
  values: Object.fromEntries(ESCROW_EVENT_KINDS.map((kind) => [kind.toUpperCase(), { value: kind }])) as Record<
    Uppercase<(typeof ESCROW_EVENT_KINDS)[number]>,
    { value: (typeof ESCROW_EVENT_KINDS)[number] }
  >,
});

const RecordEscrowEventInput = builder.inputType('RecordEscrowEventInput', {
  fields: (t) => ({
    swapId: t.string({ required: true, description: 'Which intent: the escrow id.' }),
    kind: t.field({ type: EscrowEventKind, required: true }),
    txHash: t.string({ required: true }),
    blockNumber: t.field({ type: 'SafeInt', required: true }),
    timestamp: t.field({ type: 'DateTime', required: true, description: 'Block time, whole seconds.' }),
    commitment: t.string({ required: false, description: 'The revealed secret; required for a claim.' }),
  }),
});

builder.mutationFields((t) => ({
  recordEscrowEvent: t.prismaField({
    type: 'Order',
    description: 'An escrow event from a chain watcher (needs the watcher key). Returns the updated order.',
    args: { input: t.arg({ type: RecordEscrowEventInput, required: true }) },
    resolve: async (query, _root, { input }, ctx) => {
      if (!ctx.isWatcher) throw new UnauthenticatedError('recording escrow events needs Authorization: Bearer <WATCHER_KEY>');
      const { swapId, ...event } = input;
      const { orderId } = await recordEscrowEvent(ctx, swapId, parseInput(EscrowEventSchema, event));
      return ctx.prisma.order.findUniqueOrThrow({ ...query, where: { id: orderId } });
    },
  }),
}));
