import type {
  WebhookAttempt as AttemptRow,
  WebhookDelivery as DeliveryRow,
  WebhookEndpoint as EndpointRow,
} from '../generated/prisma/client.ts';
import {
  createEndpoint,
  deleteEndpoint,
  listDeliveries,
  listEndpoints,
  redeliver,
  requireOwner,
  rotateSecret,
} from '../webhooks/endpoints.ts';
import { builder } from './builder.ts';

/** Webhook endpoints and their deliveries (README, For integrators); every field is the owner's own. */

const WebhookEndpoint = builder.objectRef<EndpointRow>('WebhookEndpoint').implement({
  description: 'A URL that receives signed events. Its secret is shown only when created or rotated.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'The endpoint id (ep_...).' }),
    url: t.exposeString('url', { description: 'Where events are POSTed.' }),
    events: t.exposeStringList('events', { description: 'The event types sent to it.' }),
    users: t.exposeStringList('filterUsers', { description: "Only these users' orders; empty = all." }),
    chains: t.exposeStringList('filterChains', { description: 'Only orders touching these chains; empty = all.' }),
    enabled: t.boolean({ description: 'False once disabled after failing for too long.', resolve: (e) => e.disabledAt === null }),
    disabledAt: t.expose('disabledAt', { type: 'DateTime', nullable: true, description: 'When it was disabled.' }),
    disabledReason: t.exposeString('disabledReason', { nullable: true, description: 'Why it was disabled.' }),
    failingSince: t.expose('failingSince', {
      type: 'DateTime',
      nullable: true,
      description: 'The first failed attempt since the last success.',
    }),
    previousSecretExpiresAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'Until then the secret before the last rotation also signs.',
      resolve: (e) => (e.previousSecretUntil && e.previousSecretUntil > new Date() ? e.previousSecretUntil : null),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was registered.' }),
  }),
});

const WebhookEndpointWithSecret = builder.objectRef<{ endpoint: EndpointRow; secret: string }>('WebhookEndpointWithSecret').implement({
  description: 'An endpoint with its signing secret, answered once: at creation or rotation.',
  fields: (t) => ({
    endpoint: t.field({ type: WebhookEndpoint, description: 'The endpoint.', resolve: (p) => p.endpoint }),
    secret: t.exposeString('secret', { description: 'whsec_ + base64. Shown only now: store it.' }),
  }),
});

const WebhookAttempt = builder.objectRef<AttemptRow>('WebhookAttempt').implement({
  description: 'One POST of a delivery, as the receiver answered it.',
  fields: (t) => ({
    attempt: t.exposeInt('attempt', { description: '1 for the first attempt.' }),
    startedAt: t.expose('startedAt', { type: 'DateTime', description: 'When it was sent.' }),
    statusCode: t.exposeInt('statusCode', { nullable: true, description: 'The HTTP status; null when there was no answer.' }),
    latencyMs: t.exposeInt('latencyMs', { description: 'From sending to the answer (or the failure).' }),
    error: t.exposeString('error', { nullable: true, description: 'Why it failed without an answer (timeout, refused address).' }),
    response: t.exposeString('response', { nullable: true, description: 'The first 1 KiB of the answer.' }),
  }),
});

type DeliveryShape = DeliveryRow & { event: { type: string }; attemptLog: AttemptRow[] };

const WebhookDelivery = builder.objectRef<DeliveryShape>('WebhookDelivery').implement({
  description: 'One event for one endpoint, retried until delivered or given up.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'The delivery id (dlv_...).' }),
    eventId: t.exposeString('eventId', { description: 'The webhook-id header: the same for every delivery of one event.' }),
    eventType: t.string({ description: 'order.status_changed, claim.confirmed or claim.failed.', resolve: (d) => d.event.type }),
    orderId: t.exposeString('orderId', { description: 'The order the event is about.' }),
    state: t.string({ description: 'pending, delivered or failed (gave up).', resolve: (d) => d.state }),
    attempts: t.exposeInt('attempts', { description: 'Attempts made so far.' }),
    nextAttemptAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When a pending delivery is tried next.',
      resolve: (d) => (d.state === 'pending' ? d.nextAttemptAt : null),
    }),
    lastStatus: t.exposeInt('lastStatus', { nullable: true, description: "The last attempt's HTTP status." }),
    lastError: t.exposeString('lastError', { nullable: true, description: "The last attempt's failure." }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the event was fanned out to the endpoint.' }),
    deliveredAt: t.expose('deliveredAt', { type: 'DateTime', nullable: true, description: 'When a receiver answered 2xx.' }),
    attemptLog: t.field({ type: [WebhookAttempt], description: 'Every attempt, oldest first.', resolve: (d) => d.attemptLog }),
  }),
});

const CreateWebhookEndpointInput = builder.inputType('CreateWebhookEndpointInput', {
  description: 'A webhook endpoint to register.',
  fields: (t) => ({
    url: t.string({ required: true, description: 'An http:// or https:// URL on a public address.' }),
    events: t.stringList({ required: true, description: 'order.status_changed, claim.confirmed, claim.failed' }),
    users: t.stringList({ required: false, description: "Only these users' orders (default: all)." }),
    chains: t.stringList({ required: false, description: 'Only orders touching these chains (default: all).' }),
  }),
});

const RotateWebhookSecretInput = builder.inputType('RotateWebhookSecretInput', {
  description: 'Which endpoint gets a new secret.',
  fields: (t) => ({
    id: t.string({ required: true, description: 'The endpoint id.' }),
    graceSeconds: t.int({ required: false, description: 'How long the old secret keeps signing (default 86400).' }),
  }),
});

const RedeliverWebhookInput = builder.inputType('RedeliverWebhookInput', {
  description: 'Which delivery to send again.',
  fields: (t) => ({
    endpointId: t.string({ required: true, description: 'The endpoint id.' }),
    deliveryId: t.string({ required: true, description: 'The delivery to repeat.' }),
  }),
});

builder.queryFields((t) => ({
  webhookEndpoints: t.field({
    type: [WebhookEndpoint],
    description: "The calling key's webhook endpoints, newest first.",
    resolve: (_root, _args, ctx) => listEndpoints(ctx.webhooks, requireOwner(ctx.webhookOwner, ctx.apiKey)),
  }),
  webhookDeliveries: t.field({
    type: [WebhookDelivery],
    description: "An endpoint's deliveries, newest first, with every attempt.",
    args: {
      endpointId: t.arg.string({ required: true, description: 'The endpoint id.' }),
      limit: t.arg.int({ required: false, description: 'At most this many (1-100, default 50).' }),
    },
    resolve: (_root, args, ctx) => listDeliveries(ctx.webhooks, requireOwner(ctx.webhookOwner, ctx.apiKey), args.endpointId, args.limit),
  }),
}));

builder.mutationFields((t) => ({
  createWebhookEndpoint: t.field({
    type: WebhookEndpointWithSecret,
    description: 'Registers an endpoint for the calling key; the answer carries its secret, shown only now.',
    args: { input: t.arg({ type: CreateWebhookEndpointInput, required: true, description: 'The endpoint.' }) },
    resolve: (_root, { input }, ctx) =>
      createEndpoint(
        { webhooks: ctx.webhooks, registry: ctx.registry, allowPrivateTargets: ctx.config.webhooks.allowPrivateTargets },
        requireOwner(ctx.webhookOwner, ctx.apiKey),
        { url: input.url, events: input.events, users: input.users ?? undefined, chains: input.chains ?? undefined },
      ),
  }),
  deleteWebhookEndpoint: t.field({
    type: WebhookEndpoint,
    description: 'Deletes an endpoint of the calling key, with its deliveries.',
    args: { id: t.arg.string({ required: true, description: 'The endpoint id.' }) },
    resolve: (_root, args, ctx) => deleteEndpoint(ctx.webhooks, requireOwner(ctx.webhookOwner, ctx.apiKey), args.id),
  }),
  rotateWebhookSecret: t.field({
    type: WebhookEndpointWithSecret,
    description: 'A new signing secret; the old one also signs for the grace period.',
    args: { input: t.arg({ type: RotateWebhookSecretInput, required: true, description: 'The endpoint and grace period.' }) },
    resolve: (_root, { input: { id, ...input } }, ctx) => rotateSecret(ctx.webhooks, requireOwner(ctx.webhookOwner, ctx.apiKey), id, input),
  }),
  redeliverWebhook: t.field({
    type: WebhookDelivery,
    description: "Sends a delivery's event again (same webhook-id), now; enables a disabled endpoint.",
    args: { input: t.arg({ type: RedeliverWebhookInput, required: true, description: 'The delivery.' }) },
    resolve: (_root, { input }, ctx) =>
      redeliver(ctx.webhooks, requireOwner(ctx.webhookOwner, ctx.apiKey), input.endpointId, input.deliveryId),
  }),
}));
