import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { ConflictError, UnauthenticatedError, badRequest, notFound } from '../domain/errors.ts';
import type { Registry } from '../domain/registry/registry.ts';
import type { PrismaClient, WebhookEndpoint } from '../generated/prisma/client.ts';
import { bearerToken } from '../http/auth.ts';
import { isOneOf } from '../http/api-keys.ts';
import { WEBHOOK_EVENT_TYPES, newId } from './outbox.ts';
import { urlProblem } from './target.ts';

/**
 * Webhook endpoints, owned by the API key that registered them: `owner` is the key's sha256, so a
 * key sees and manages only its own endpoints. Without API_KEYS the service has no callers to tell
 * apart: every endpoint then belongs to one shared owner, `open` (README, For integrators).
 */

export const OPEN_OWNER = 'open';

/** The caller's owner id; undefined when API_KEYS is set and the request carries none of them. */
export function webhookOwner(request: Request | undefined, apiKeys: readonly string[]): string | undefined {
  if (apiKeys.length === 0) return OPEN_OWNER;
  const token = bearerToken(request);
  if (!token || !isOneOf(token, apiKeys)) return undefined;
  return createHash('sha256').update(token).digest('hex');
}

export function requireOwner(owner: string | undefined): string {
  if (!owner) throw new UnauthenticatedError('webhooks need Authorization: Bearer <API key>');
  return owner;
}

/** whsec_ + 24 random bytes in base64, the Standard Webhooks secret format. */
const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

const MAX_ENDPOINTS_PER_OWNER = 20;
const DEFAULT_GRACE_SECONDS = 24 * 3600;

export const CreateWebhookSchema = z.object({
  url: z.string({ error: 'url is required (an http:// or https:// URL)' }).max(2048, 'url must be at most 2048 characters'),
  events: z
    .array(z.enum(WEBHOOK_EVENT_TYPES, { error: `events must hold only ${WEBHOOK_EVENT_TYPES.join(', ')}` }), {
      error: `events must be a list of ${WEBHOOK_EVENT_TYPES.join(', ')}`,
    })
    .min(1, 'events must name at least one event type'),
  users: z.array(z.string().min(1).max(128), { error: 'users must be a list of user ids' }).max(100).optional(),
  chains: z.array(z.string().min(1).max(64), { error: 'chains must be a list of chain ids' }).max(50).optional(),
});
export type CreateWebhook = z.infer<typeof CreateWebhookSchema>;

function parse<T>(schema: z.ZodType<T>, input: unknown): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw badRequest(issue.message);
}

export async function createEndpoint(
  deps: { prisma: PrismaClient; registry: Registry; allowPrivateTargets: boolean },
  owner: string,
  input: unknown,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const request = parse(CreateWebhookSchema, input);
  const problem = urlProblem(request.url, deps.allowPrivateTargets);
  if (problem) throw badRequest(problem);
  for (const chain of request.chains ?? []) {
    if (!deps.registry.chain(chain)) throw badRequest('chains must hold listed chain ids (see GET /chains)');
  }
  const secret = newSecret();
  const endpoint = await oneAtATime(owner, () => insertUnderCap(deps.prisma, owner, request, secret));
  return { endpoint, secret };
}

/**
 * The count and the insert under one lock per owner (a transaction-scoped advisory lock), so concurrent
 * registrations by one key, on any instance, each see the ones before them and the cap holds (a count
 * before an insert would not).
 */
function insertUnderCap(prisma: PrismaClient, owner: string, request: CreateWebhook, secret: string): Promise<WebhookEndpoint> {
  return prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`webhook-endpoints:${owner}`}, 0))`;
    const count = await tx.webhookEndpoint.count({ where: { owner } });
    if (count >= MAX_ENDPOINTS_PER_OWNER) {
      throw new ConflictError(`a key may register at most ${MAX_ENDPOINTS_PER_OWNER} webhook endpoints`);
    }
    return tx.webhookEndpoint.create({
      data: {
        id: newId('ep'),
        owner,
        url: request.url,
        events: [...new Set(request.events)],
        filterUsers: [...new Set(request.users ?? [])],
        filterChains: [...new Set(request.chains ?? [])],
        secret,
      },
    });
  });
}

/**
 * Runs one registration per owner at a time on this instance: the ones queued behind the lock wait here,
 * not on a pooled connection each (a burst by one key would otherwise hold the whole pool waiting).
 */
const ownerQueues = new Map<string, Promise<unknown>>();
function oneAtATime<T>(owner: string, work: () => Promise<T>): Promise<T> {
  const previous = ownerQueues.get(owner) ?? Promise.resolve();
  const run = previous.then(work, work);
  const settled = run.catch(() => undefined);
  ownerQueues.set(owner, settled);
  void settled.then(() => {
    if (ownerQueues.get(owner) === settled) ownerQueues.delete(owner);
  });
  return run;
}

export function listEndpoints(prisma: PrismaClient, owner: string): Promise<WebhookEndpoint[]> {
  return prisma.webhookEndpoint.findMany({ where: { owner }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
}

export async function ownedEndpoint(prisma: PrismaClient, owner: string, id: string): Promise<WebhookEndpoint> {
  const endpoint = await prisma.webhookEndpoint.findFirst({ where: { id, owner } });
  if (!endpoint) throw notFound(`webhook endpoint ${id} not found`);
  return endpoint;
}

export async function deleteEndpoint(prisma: PrismaClient, owner: string, id: string): Promise<WebhookEndpoint> {
  const endpoint = await ownedEndpoint(prisma, owner, id);
  await prisma.webhookEndpoint.deleteMany({ where: { id, owner } });
  return endpoint;
}

/** A new secret; the old one keeps signing (both signatures sent) for the grace period. */
export async function rotateSecret(
  prisma: PrismaClient,
  owner: string,
  id: string,
  graceSeconds: number | null | undefined,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const grace = graceSeconds ?? DEFAULT_GRACE_SECONDS;
  if (!Number.isInteger(grace) || grace < 0 || grace > 7 * 86_400) {
    throw badRequest('grace_seconds must be an integer from 0 to 604800 (7 days)');
  }
  const current = await ownedEndpoint(prisma, owner, id);
  const secret = newSecret();
  const endpoint = await prisma.webhookEndpoint.update({
    where: { id: current.id },
    data: { secret, previousSecret: current.secret, previousSecretUntil: new Date(Date.now() + grace * 1000) },
  });
  return { endpoint, secret };
}

/** Deliveries of an endpoint, newest first, each with its attempts. */
export async function listDeliveries(prisma: PrismaClient, owner: string, id: string, limit: number | null | undefined) {
  const take = limit ?? 50;
  if (!Number.isInteger(take) || take < 1 || take > 100) throw badRequest('limit must be an integer from 1 to 100');
  await ownedEndpoint(prisma, owner, id);
  return prisma.webhookDelivery.findMany({
    where: { endpointId: id },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take,
    include: { event: { select: { type: true } }, attemptLog: { orderBy: { id: 'asc' } } },
  });
}

/**
 * Sends an event again: a new delivery of the same event (same webhook-id, so a receiver that
 * already processed it can tell), due now, also for an endpoint that was disabled (which it enables).
 */
export async function redeliver(prisma: PrismaClient, owner: string, id: string, deliveryId: string) {
  await ownedEndpoint(prisma, owner, id);
  const original = await prisma.webhookDelivery.findFirst({ where: { id: deliveryId, endpointId: id } });
  if (!original) throw notFound(`delivery ${deliveryId} not found for webhook endpoint ${id}`);
  const [, delivery] = await prisma.$transaction([
    prisma.webhookEndpoint.update({ where: { id }, data: { disabledAt: null, disabledReason: null, failingSince: null } }),
    prisma.webhookDelivery.create({
      data: { id: newId('dlv'), endpointId: id, eventId: original.eventId, eventSeq: original.eventSeq, orderId: original.orderId },
      include: { event: { select: { type: true } }, attemptLog: true },
    }),
  ]);
  return delivery;
}
