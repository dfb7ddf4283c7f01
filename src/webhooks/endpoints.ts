import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { ConflictError, UnauthenticatedError, badRequest, notFound } from '../domain/errors.ts';
import { intInRange, missingOr, object, parseField, parseInput, text, userId } from '../domain/input.ts';
import type { Registry } from '../domain/registry/registry.ts';
import type { WebhookEndpoint } from '../generated/prisma/client.ts';
import { bearerToken } from '../http/auth.ts';
import { apiKeyMessage, isOneOf, type ApiKeyCheck } from '../http/api-keys.ts';
import { WEBHOOK_EVENT_TYPES, newId } from '../domain/webhook-events.ts';
import type { WebhookEndpointsStore } from '../db/webhook-endpoints-store.ts';
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
  // The rule of the orders' user ids (NFC, no invisible or control characters): a filter names users as orders do.
  users: z.array(userId, { error: 'must be a list of user ids' }).max(100, { error: 'must hold at most 100 user ids' }).optional(),
  chains: z.array(text(64), { error: 'must be a list of chain ids' }).max(50, { error: 'must hold at most 50 chain ids' }).optional(),
});
export type CreateWebhook = z.infer<typeof CreateWebhookSchema>;

const MAX_GRACE_SECONDS = 7 * 86_400;

/** rotateWebhookSecret's input, less the endpoint's id (REST has it in the path). */
export const RotateSecretSchema = object({ graceSeconds: intInRange(0, MAX_GRACE_SECONDS).nullish() });

const DELIVERIES_LIMIT = intInRange(1, 100);

export async function createEndpoint(
  deps: { webhooks: WebhookEndpointsStore; registry: Registry; allowPrivateTargets: boolean },
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
  const endpoint = await oneAtATime(owner, () =>
    deps.webhooks.insertUnderCap(
      {
        id: newId('ep'),
        owner,
        url: request.url,
        events: [...new Set(request.events)],
        filterUsers: [...new Set(request.users ?? [])],
        filterChains: [...new Set(request.chains ?? [])],
        secret,
      },
      MAX_ENDPOINTS_PER_OWNER,
    ),
  );
  if (!endpoint) throw new ConflictError(`a key may register at most ${MAX_ENDPOINTS_PER_OWNER} webhook endpoints`);
  return { endpoint, secret };
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

export function listEndpoints(webhooks: WebhookEndpointsStore, owner: string): Promise<WebhookEndpoint[]> {
  return webhooks.list(owner);
}

export async function ownedEndpoint(webhooks: WebhookEndpointsStore, owner: string, id: string): Promise<WebhookEndpoint> {
  const endpoint = await webhooks.ownedEndpoint(owner, id);
  if (!endpoint) throw notFound(`webhook endpoint ${id} not found`);
  return endpoint;
}

export async function deleteEndpoint(webhooks: WebhookEndpointsStore, owner: string, id: string): Promise<WebhookEndpoint> {
  const endpoint = await ownedEndpoint(webhooks, owner, id);
  await webhooks.delete(owner, id);
  return endpoint;
}

/** A new secret; the old one keeps signing (both signatures sent) for the grace period. */
export async function rotateSecret(
  webhooks: WebhookEndpointsStore,
  owner: string,
  id: string,
  input: unknown,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const grace = parseInput(RotateSecretSchema, input).graceSeconds ?? DEFAULT_GRACE_SECONDS;
  const current = await ownedEndpoint(webhooks, owner, id);
  const secret = newSecret();
  const endpoint = await webhooks.rotate(current.id, {
    secret,
    previousSecret: current.secret,
    previousSecretUntil: new Date(Date.now() + grace * 1000),
  });
  return { endpoint, secret };
}

/** Deliveries of an endpoint, newest first, each with its attempts. */
export async function listDeliveries(webhooks: WebhookEndpointsStore, owner: string, id: string, limit: unknown) {
  const take = limit == null ? 50 : parseField(DELIVERIES_LIMIT, limit, 'limit');
  await ownedEndpoint(webhooks, owner, id);
  return webhooks.deliveries(id, take);
}

/**
 * Sends an event again: a new delivery of the same event (same webhook-id, so a receiver that
 * already processed it can tell), due now, also for an endpoint that was disabled (which it enables).
 */
export async function redeliver(webhooks: WebhookEndpointsStore, owner: string, id: string, deliveryId: string) {
  await ownedEndpoint(webhooks, owner, id);
  const original = await webhooks.delivery(id, deliveryId);
  if (!original) throw notFound(`delivery ${deliveryId} not found for webhook endpoint ${id}`);
  return webhooks.redeliver(id, newId('dlv'), original);
}
