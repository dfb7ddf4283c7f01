import { UnauthenticatedError } from '../domain/errors.ts';
import { bearerToken, keyMatches } from './auth.ts';

/** True when the token is one of the keys. Every key is compared, in constant time, so timing tells nothing. */
export function isOneOf(presented: string | undefined, keys: readonly (string | undefined)[]): boolean {
  let found = false;
  for (const key of keys) found = keyMatches(presented, key) || found;
  return found;
}

/**
 * Writes (quotes, orders, claims) need `Authorization: Bearer <key>` when API_KEYS is set; reads
 * never do.
 */
export function isWriterAllowed(request: Request | undefined, apiKeys: readonly string[]): boolean {
  if (apiKeys.length === 0) return true;
  return isOneOf(bearerToken(request), apiKeys);
}

export function requireWriter(ctx: { canWrite: boolean }): void {
  if (!ctx.canWrite) throw new UnauthenticatedError('this write needs Authorization: Bearer <API key>');
}
