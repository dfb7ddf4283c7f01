import { intInRange, parseField, parseInput } from '../../domain/input.ts';
import { restInput } from '../input.ts';
import { CreateWebhookSchema, RotateSecretSchema } from '../../webhooks/endpoints.ts';
import { ok, runWrite, type Route } from '../route.ts';

/**
 * POST /webhooks' body to the GraphQL input, parsed here first (events are plain strings in GraphQL,
 * so the body cannot pass through graphqlInput's enum spelling), naming a bad field as the client sent it.
 */
function webhookInput(body: unknown) {
  return parseInput(CreateWebhookSchema, restInput(CreateWebhookSchema, body), 'snake_case');
}

export const webhookRoutes: Route[] = [
  {
    method: 'POST',
    path: '/webhooks',
    body: true,
    doc: {
      operationId: 'createWebhookEndpoint',
      summary: 'Register a webhook endpoint',
      description: 'Needs an API key; the endpoint belongs to that key. The signing secret is returned once, here.',
      tag: 'Webhooks',
      document: 'createWebhookEndpoint',
      input: CreateWebhookSchema,
      result: ['createWebhookEndpoint'],
      merge: 'endpoint',
      responses: { 201: 'The endpoint and its signing secret.' },
      errors: [400, 401, 409],
      example: { url: 'https://hooks.example.com/orderbook', events: ['order.status_changed'] },
    },
    write: true,
    async handle(input, run) {
      const { data } = await run('createWebhookEndpoint', { input: webhookInput(input.body ?? {}) });
      const created = data.createWebhookEndpoint as { secret: string; endpoint: Record<string, unknown> };
      return ok({ ...created.endpoint, secret: created.secret }, 201);
    },
  },
  {
    method: 'GET',
    path: '/webhooks',
    write: true,
    doc: {
      operationId: 'listWebhookEndpoints',
      summary: "The API key's webhook endpoints",
      tag: 'Webhooks',
      document: 'webhookEndpoints',
      result: ['webhookEndpoints'],
      responses: { 200: 'Every endpoint of the key.' },
      errors: [401],
    },
    async handle(_input, run) {
      return ok((await run('webhookEndpoints', {})).data.webhookEndpoints);
    },
  },
  {
    method: 'DELETE',
    path: '/webhooks/:id',
    doc: {
      operationId: 'deleteWebhookEndpoint',
      summary: 'Delete a webhook endpoint',
      tag: 'Webhooks',
      document: 'deleteWebhookEndpoint',
      result: ['deleteWebhookEndpoint'],
      responses: { 200: 'The deleted endpoint.' },
      errors: [401, 404],
    },
    write: true,
    async handle(input, run) {
      return ok((await run('deleteWebhookEndpoint', { id: input.params.id })).data.deleteWebhookEndpoint);
    },
  },
  {
    method: 'POST',
    path: '/webhooks/:id/rotate-secret',
    doc: {
      operationId: 'rotateWebhookSecret',
      summary: "Rotate a webhook endpoint's signing secret",
      description: 'The old secret keeps signing beside the new one for grace_seconds.',
      tag: 'Webhooks',
      document: 'rotateWebhookSecret',
      result: ['rotateWebhookSecret'],
      merge: 'endpoint',
      responses: { 200: 'The endpoint and its new secret.' },
      errors: [400, 401, 404],
      example: { grace_seconds: 3600 },
    },
    // grace_seconds has a default: a POST without a body rotates with it.
    body: 'optional',
    write: true,
    async handle(input, run) {
      const { data } = await runWrite(run, 'rotateWebhookSecret', RotateSecretSchema, input.body ?? {}, { id: input.params.id });
      const rotated = data.rotateWebhookSecret as { secret: string; endpoint: Record<string, unknown> };
      return ok({ ...rotated.endpoint, secret: rotated.secret });
    },
  },
  {
    method: 'GET',
    path: '/webhooks/:id/deliveries',
    doc: {
      operationId: 'listWebhookDeliveries',
      summary: "A webhook endpoint's recent deliveries",
      tag: 'Webhooks',
      document: 'webhookDeliveries',
      result: ['webhookDeliveries'],
      pathVariables: { id: 'endpointId' },
      responses: { 200: 'Deliveries, newest first.' },
      errors: [400, 401, 404],
    },
    write: true,
    async handle(input, run) {
      const raw = input.query.get('limit');
      const limit = raw === null ? undefined : parseField(intInRange(1, 100), raw, 'limit');
      return ok((await run('webhookDeliveries', { endpointId: input.params.id, limit })).data.webhookDeliveries);
    },
  },
  {
    method: 'POST',
    path: '/webhooks/:id/deliveries/:deliveryId/redeliver',
    doc: {
      operationId: 'redeliverWebhookDelivery',
      summary: 'Deliver an event again',
      tag: 'Webhooks',
      document: 'redeliverWebhook',
      result: ['redeliverWebhook'],
      pathVariables: { id: 'endpointId' },
      responses: { 202: 'The delivery, queued again.' },
      errors: [401, 404, 409],
    },
    write: true,
    async handle(input, run) {
      const { data } = await run('redeliverWebhook', { input: { endpointId: input.params.id, deliveryId: input.params.deliveryId } });
      return ok(data.redeliverWebhook, 202);
    },
  },
];
