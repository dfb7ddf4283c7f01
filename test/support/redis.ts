import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { SUBSCRIBER_OPTIONS } from '../../src/redis.ts';

/** The shared Redis of the tests (README, Tests). */
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Redis connections for the instances of one test, in a key space of their own (`keyPrefix`), so parallel
 * runs on the one Redis never meet; `disconnect()` closes every connection it made.
 */
export class TestRedis {
  readonly keyPrefix = `test:${randomBytes(6).toString('hex')}:`;
  private readonly clients: Redis[] = [];

  /** A connection in this key space. */
  client(): Redis {
    return this.track(new Redis(REDIS_URL, { keyPrefix: this.keyPrefix }));
  }

  /** What one app instance takes (createTestApp's `redis`): a connection and a subscriber. */
  pair(): { client: Redis; subscriber: Redis } {
    return { client: this.client(), subscriber: this.track(new Redis(REDIS_URL, { keyPrefix: this.keyPrefix, ...SUBSCRIBER_OPTIONS })) };
  }

  /** A connection outside the key space, for what the test reads as Redis sees it (PUBSUB, full keys). */
  observer(): Redis {
    return this.track(new Redis(REDIS_URL));
  }

  disconnect(): void {
    for (const c of this.clients.splice(0)) c.disconnect();
  }

  private track(redis: Redis): Redis {
    this.clients.push(redis);
    return redis;
  }
}

/** Whether a redis-server on this port answers PING (the private ones the fault and cluster harnesses start). */
export function redisAnswers(port: number): boolean {
  try {
    return (
      execFileSync('redis-cli', ['-p', String(port), 'ping'], { stdio: 'pipe' })
        .toString()
        .trim() === 'PONG'
    );
  } catch {
    return false;
  }
}
