import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { ConflictError, UnauthenticatedError, badRequest, notFound } from '../domain/errors.ts';
import { intInRange, missingOr, object, parseField, parseInput, text } from '../domain/input.ts';
import type { Registry } from '../domain/registry/registry.ts';
import type { PrismaClient, WebhookEndpoint } from '../generated/prisma/client.ts';
import { bearerToken } from '../http/auth.ts';
import { apiKeyMessage, isOneOf, type ApiKeyCheck } from '../http/api-keys.ts';
import { WEBHOOK_EVENT_TYPES, newId } from '../domain/webhook-events.ts';
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

export function requireOwner(owner: string | undefined, apiKey: ApiKeyCheck = 'missing'): string {
  if (!owner) throw new UnauthenticatedError(apiKeyMessage(apiKey === 'unknown' ? 'unknown' : 'missing', 'managing webhooks'));
  return owner;
}

/** whsec_ + 24 random bytes in base64, the Standard Webhooks secret format. */
const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

const MAX_ENDPOINTS_PER_OWNER = 20;
const DEFAULT_GRACE_SECONDS = 24 * 3600;

const EVENT_TYPES = WEBHOOK_EVENT_TYPES.join(', ');

/** POST /webhooks and createWebhookEndpoint. */
export const CreateWebhookSchema = object({
  url: text(2048),
  events: z
    .array(z.enum(WEBHOOK_EVENT_TYPES, { error: `must be one of ${EVENT_TYPES}` }), {
      error: missingOr(`must be a list of ${EVENT_TYPES}`),
    })
    .min(1, { error: 'must name at least one event type' }),
  users: z.array(text(128), { error: 'must be a list of user ids' }).max(100, { error: 'must hold at most 100 user ids' }).optional(),
  chains: z.array(text(64), { error: 'must be a list of chain ids' }).max(50, { error: 'must hold at most 50 chain ids' }).optional(),
});
export type CreateWebhook = z.infer<typeof CreateWebhookSchema>;

const MAX_GRACE_SECONDS = 7 * 86_400;

/** rotateWebhookSecret's input, less the endpoint's id (REST has it in the path). */
export const RotateSecretSchema = object({ graceSeconds: intInRange(0, MAX_GRACE_SECONDS).nullish() });

const DELIVERIES_LIMIT = intInRange(1, 100);

export async function createEndpoint(
  deps: { prisma: PrismaClient; registry: Registry; allowPrivateTargets: boolean },
  owner: string,
  input: unknown,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const request = parseInput(CreateWebhookSchema, input);
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
  input: unknown,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const grace = parseInput(RotateSecretSchema, input).graceSeconds ?? DEFAULT_GRACE_SECONDS;
  const current = await ownedEndpoint(prisma, owner, id);
  const secret = newSecret();
  const endpoint = await prisma.webhookEndpoint.update({
    where: { id: current.id },
    data: { secret, previousSecret: current.secret, previousSecretUntil: new Date(Date.now() + grace * 1000) },
  });
  return { endpoint, secret };
}

/** Deliveries of an endpoint, newest first, each with its attempts. */
export async function listDeliveries(prisma: PrismaClient, owner: string, id: string, limit: unknown) {
  const take = limit == null ? 50 : parseField(DELIVERIES_LIMIT, limit, 'limit');
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
