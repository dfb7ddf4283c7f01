import type { RedisOptions } from 'ioredis';

/**
 * Options for a connection that only subscribes (subscription fan-out). Without the ready check:
 * ioredis 5.8+ can send its ready-check INFO after a SUBSCRIBE issued while connecting; Redis refuses
 * it in subscriber mode, and ioredis then errors and reconnects, dropping the channel for a moment
 * (ioredis issue #2037). A subscriber sends no other command, so the check has nothing to guard.
 */
export const SUBSCRIBER_OPTIONS = { enableReadyCheck: false } as const satisfies RedisOptions;
