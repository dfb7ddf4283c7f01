import { UnauthenticatedError } from '../domain/errors.ts';
import { bearerToken, keyMatches } from './auth.ts';

/** True when the token is one of the keys. Every key is compared, in constant time, so timing tells nothing. */
export function isOneOf(presented: string | undefined, keys: readonly (string | undefined)[]): boolean {
  let found = false;
  for (const key of keys) found = keyMatches(presented, key) || found;
  return found;
}

/**
 * What a request's API key amounts to: `ok` (one of API_KEYS, or no keys configured), `missing` (no bearer
 * token), or `unknown` (a token that is none of the keys), so a client with a mistyped key is told so.
 */
export type ApiKeyCheck = 'ok' | 'missing' | 'unknown';

export function checkApiKey(request: Request | undefined, apiKeys: readonly string[]): ApiKeyCheck {
  if (apiKeys.length === 0) return 'ok';
  const token = bearerToken(request);
  if (!token) return 'missing';
  return isOneOf(token, apiKeys) ? 'ok' : 'unknown';
}

/** The 401 message for a refused key; `action` names what needed it ("this write", "this request"). */
export function apiKeyMessage(check: Exclude<ApiKeyCheck, 'ok'>, action: string): string {
  return check === 'unknown'
    ? `unknown API key: ${action} needs Authorization: Bearer <API key> with one of the service's keys`
    : `${action} needs Authorization: Bearer <API key>`;
}

/**
 * Writes (quotes, orders, claims) need `Authorization: Bearer <key>` when API_KEYS is set; reads
 * never do.
 */
export function isWriterAllowed(request: Request | undefined, apiKeys: readonly string[]): boolean {
  return checkApiKey(request, apiKeys) === 'ok';
}

export function requireWriter(ctx: { apiKey: ApiKeyCheck }): void {
  if (ctx.apiKey !== 'ok') throw new UnauthenticatedError(apiKeyMessage(ctx.apiKey, 'this write'));
}
