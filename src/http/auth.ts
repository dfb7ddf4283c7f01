import { createHash, timingSafeEqual } from 'node:crypto';

/** The token of `Authorization: Bearer <token>`, if any. */
export function bearerToken(request: Request | undefined): string | undefined {
  const header = request?.headers.get('authorization') ?? '';
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/**
 * Constant-time key check: both sides are hashed first, so neither the key's content nor its
 * length leaks through timing.
 */
export function keyMatches(presented: string | undefined, expected: string | undefined): boolean {
  if (!presented || !expected) return false;
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}
