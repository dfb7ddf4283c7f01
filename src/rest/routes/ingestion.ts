import { EscrowEventSchema } from '../../domain/escrow-events.ts';
import { restOrder } from '../output.ts';
import { ok, runWrite, type Route } from '../route.ts';

/** Chain watchers report escrow events here (WATCHER_KEY). */

export const ingestionRoutes: Route[] = [
  {
    method: 'POST',
    path: '/intents/:swapId/events',
    doc: {
      operationId: 'recordEscrowEvent',
      summary: 'Report an escrow event (chain watchers)',
      description:
        'Needs Authorization: Bearer <WATCHER_KEY>. The same event again is a no-op 200; an event no chain can produce for this escrow is a 409 and changes nothing.',
      tag: 'Ingestion',
      document: 'recordEscrowEvent',
      input: EscrowEventSchema,
      result: ['recordEscrowEvent'],
      responses: { 200: 'The order after the event.' },
      errors: [400, 401, 404, 409],
      example: {
        kind: 'create',
        tx_hash: '0x4b1d8e9a7c1f2e3d4c5b6a79880716253443526170819a2b3c4d5e6f70819a2b',
        block_number: 840000,
        timestamp: '2026-11-23T12:00:00Z',
      },
    },
    body: true,
    watcher: true,
    async handle(input, run) {
      const { data } = await runWrite(run, 'recordEscrowEvent', EscrowEventSchema, input.body, {
        swapId: input.params.swapId!,
      });
      return ok(restOrder(data.recordEscrowEvent));
    },
  },
];
