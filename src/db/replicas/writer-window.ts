import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/** Who wrote recently, so their reads stay on the primary (read-your-writes). */
export interface WriterWindow {
  mark(client: string): void;
  wroteRecently(client: string): Promise<boolean>;
}

export function memoryWriterWindow(windowMs: number, now: () => number = Date.now): WriterWindow {
  const until = new Map<string, number>();
  return {
    mark(client) {
      const t = now();
      // Forget expired entries now and then, so the map holds only the window's writers.
      if (until.size > 10_000) for (const [key, end] of until) if (end <= t) until.delete(key);
      until.set(client, t + windowMs);
    },
    async wroteRecently(client) {
      const end = until.get(client);
      return end !== undefined && end > now();
    },
  };
}

/**
 * The window shared by every instance through Redis (a key per writer that expires with the window),
 * so a client that wrote through one instance reads from the primary on all of them. Redis failing,
 * nobody can tell who wrote elsewhere: reads then stay on the primary (consistency over offload).
 */
export function redisWriterWindow(
  redis: Redis,
  windowMs: number,
  onError: (error: Error) => void,
  now: () => number = Date.now,
): WriterWindow {
  const local = memoryWriterWindow(windowMs, now);
  const key = (client: string) => `rw:${createHash('sha256').update(client).digest('base64url').slice(0, 22)}`;
  return {
    mark(client) {
      local.mark(client);
      redis.set(key(client), '1', 'PX', windowMs).catch(onError);
    },
    async wroteRecently(client) {
      if (await local.wroteRecently(client)) return true;
      try {
        return (await redis.exists(key(client))) === 1;
      } catch (error) {
        onError(error as Error);
        return true;
      }
    },
  };
}
