import { UnauthenticatedError } from '../domain/errors.ts';
import { bearerToken, keyMatches } from './auth.ts';

/**
 * Writes (quotes, orders, claims) need `Authorization: Bearer <key>` when API_KEYS is set; reads
 * never do. Every configured key is compared, in constant time, so timing tells nothing.
 */
export function isWriterAllowed(request: Request | undefined, apiKeys: readonly string[]): boolean {
  if (apiKeys.length === 0) return true;
  const presented = bearerToken(request);
  let allowed = false;
  for (const key of apiKeys) allowed = keyMatches(presented, key) || allowed;
  return allowed;
}

export function requireWriter(ctx: { canWrite: boolean }): void {
  if (!ctx.canWrite) throw new UnauthenticatedError('this write needs Authorization: Bearer <API key>');
}
