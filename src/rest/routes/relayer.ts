import { SubmitClaimSchema } from '../../relayer/claims.ts';
import { restClaim } from '../output.ts';
import { ok, runWrite, type Route } from '../route.ts';

export const relayerRoutes: Route[] = [
  {
    method: 'POST',
    path: '/relayer/claims',
    doc: {
      operationId: 'submitClaim',
      summary: 'Ask the relayer to claim the destination escrow',
      description:
        'Stored before the answer, then sent by the relayer worker. Repeats answer 202 with the stored claim. The secret is never returned.',
      tag: 'Relayer',
      document: 'submitClaim',
      input: SubmitClaimSchema,
      result: ['submitClaim'],
      responses: { 202: 'The claim, queued.' },
      errors: [400, 401, 404, 409],
      example: {
        order_id: '019cca7d64806f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796',
        commitment: '8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b',
      },
    },
    body: true,
    write: true,
    async handle(input, run) {
      const { data } = await runWrite(run, 'submitClaim', SubmitClaimSchema, input.body);
      return ok(restClaim(data.submitClaim), 202);
    },
  },
  {
    method: 'GET',
    path: '/relayer/claims/:orderId',
    doc: {
      operationId: 'getClaim',
      summary: "The relayer's claim for an order",
      tag: 'Relayer',
      document: 'claim',
      result: ['claim'],
      responses: { 200: 'The claim: queued, submitted, confirmed or failed, with its transaction and attempts.' },
      errors: [404],
    },
    async handle(input, run) {
      const { data } = await run('claim', { orderId: input.params.orderId });
      return ok(restClaim(data.claim));
    },
  },
];
