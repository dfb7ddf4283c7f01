import type { WebhookAttempt as AttemptRow, WebhookDelivery as DeliveryRow, WebhookEndpoint as EndpointRow } from '../generated/prisma/client.ts';
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
    id: t.exposeString('id'),
    url: t.exposeString('url'),
    events: t.exposeStringList('events'),
    users: t.exposeStringList('filterUsers', { description: 'Only these users\' orders; empty = all.' }),
    chains: t.exposeStringList('filterChains', { description: 'Only orders touching these chains; empty = all.' }),
    enabled: t.boolean({ resolve: (e) => e.disabledAt === null }),
    disabledAt: t.expose('disabledAt', { type: 'DateTime', nullable: true }),
    disabledReason: t.exposeString('disabledReason', { nullable: true }),
    failingSince: t.expose('failingSince', { type: 'DateTime', nullable: true }),
    previousSecretExpiresAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'Until then the secret before the last rotation also signs.',
      resolve: (e) => (e.previousSecretUntil && e.previousSecretUntil > new Date() ? e.previousSecretUntil : null),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const WebhookEndpointWithSecret = builder
  .objectRef<{ endpoint: EndpointRow; secret: string }>('WebhookEndpointWithSecret')
  .implement({
    fields: (t) => ({
      endpoint: t.field({ type: WebhookEndpoint, resolve: (p) => p.endpoint }),
      secret: t.exposeString('secret', { description: 'whsec_ + base64. Shown only now: store it.' }),
    }),
  });

const WebhookAttempt = builder.objectRef<AttemptRow>('WebhookAttempt').implement({
  fields: (t) => ({
    attempt: t.exposeInt('attempt'),
    startedAt: t.expose('startedAt', { type: 'DateTime' }),
    statusCode: t.exposeInt('statusCode', { nullable: true }),
    latencyMs: t.exposeInt('latencyMs'),
    error: t.exposeString('error', { nullable: true }),
    response: t.exposeString('response', { nullable: true, description: 'The first 1 KiB of the answer.' }),
  }),
});

type DeliveryShape = DeliveryRow & { event: { type: string }; attemptLog: AttemptRow[] };

const WebhookDelivery = builder.objectRef<DeliveryShape>('WebhookDelivery').implement({
  fields: (t) => ({
    id: t.exposeString('id'),
    eventId: t.exposeString('eventId', { description: 'The webhook-id header: the same for every delivery of one event.' }),
    eventType: t.string({ resolve: (d) => d.event.type }),
    orderId: t.exposeString('orderId'),
    state: t.string({ description: 'pending, delivered or failed (gave up).', resolve: (d) => d.state }),
    attempts: t.exposeInt('attempts'),
    nextAttemptAt: t.field({ type: 'DateTime', nullable: true, resolve: (d) => (d.state === 'pending' ? d.nextAttemptAt : null) }),
    lastStatus: t.exposeInt('lastStatus', { nullable: true }),
    lastError: t.exposeString('lastError', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    deliveredAt: t.expose('deliveredAt', { type: 'DateTime', nullable: true }),
    attemptLog: t.field({ type: [WebhookAttempt], resolve: (d) => d.attemptLog }),
  }),
});

const CreateWebhookEndpointInput = builder.inputType('CreateWebhookEndpointInput', {
  fields: (t) => ({
    url: t.string({ required: true }),
    events: t.stringList({ required: true, description: 'order.status_changed, claim.confirmed, claim.failed' }),
    users: t.stringList({ required: false }),
    chains: t.stringList({ required: false }),
  }),
});

const RotateWebhookSecretInput = builder.inputType('RotateWebhookSecretInput', {
  fields: (t) => ({
    id: t.string({ required: true }),
    graceSeconds: t.int({ required: false, description: 'How long the old secret keeps signing (default 86400).' }),
  }),
});

const RedeliverWebhookInput = builder.inputType('RedeliverWebhookInput', {
  fields: (t) => ({
    endpointId: t.string({ required: true }),
    deliveryId: t.string({ required: true }),
  }),
});

builder.queryFields((t) => ({
  webhookEndpoints: t.field({
    type: [WebhookEndpoint],
    description: 'The calling key\'s webhook endpoints, newest first.',
    resolve: (_root, _args, ctx) => listEndpoints(ctx.prisma, requireOwner(ctx.webhookOwner)),
  }),
  webhookDeliveries: t.field({
    type: [WebhookDelivery],
    description: 'An endpoint\'s deliveries, newest first, with every attempt.',
    args: { endpointId: t.arg.string({ required: true }), limit: t.arg.int({ required: false }) },
    resolve: (_root, args, ctx) => listDeliveries(ctx.prisma, requireOwner(ctx.webhookOwner), args.endpointId, args.limit),
  }),
}));

builder.mutationFields((t) => ({
  createWebhookEndpoint: t.field({
    type: WebhookEndpointWithSecret,
    args: { input: t.arg({ type: CreateWebhookEndpointInput, required: true }) },
    resolve: (_root, { input }, ctx) =>
      createEndpoint(
        { prisma: ctx.prisma, registry: ctx.registry, allowPrivateTargets: ctx.config.webhooks.allowPrivateTargets },
        requireOwner(ctx.webhookOwner),
        { url: input.url, events: input.events, users: input.users ?? undefined, chains: input.chains ?? undefined },
      ),
  }),
  deleteWebhookEndpoint: t.field({
    type: WebhookEndpoint,
    args: { id: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => deleteEndpoint(ctx.prisma, requireOwner(ctx.webhookOwner), args.id),
  }),
  rotateWebhookSecret: t.field({
    type: WebhookEndpointWithSecret,
    args: { input: t.arg({ type: RotateWebhookSecretInput, required: true }) },
    resolve: (_root, { input }, ctx) => rotateSecret(ctx.prisma, requireOwner(ctx.webhookOwner), input.id, input.graceSeconds),
  }),
  redeliverWebhook: t.field({
    type: WebhookDelivery,
    args: { input: t.arg({ type: RedeliverWebhookInput, required: true }) },
    resolve: (_root, { input }, ctx) => redeliver(ctx.prisma, requireOwner(ctx.webhookOwner), input.endpointId, input.deliveryId),
  }),
}));
