import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscribeSse, type Subscription } from '../support/sse.ts';
import { createOne, freshDatabase, privateRedis, startServer, type ServerProcess } from './server.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const WATCHER_KEY = 'fault-watcher-key';
const USER_ORDERS = 'subscription ($userId: String!) { userOrdersUpdated(userId: $userId) { orderId status } }';

/**
 * Two instances on one PostgreSQL and a Redis of the test's own. Redis is killed under load and
 * started again: every request is answered, nothing acknowledged is lost, the process lives on,
 * and the shared cache, rate limits and fan-out resume by themselves.
 */
describe('Redis killed under load and started again', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let redis: Awaited<ReturnType<typeof privateRedis>>;
  let a: ServerProcess;
  let b: ServerProcess;
  beforeAll(async () => {
    [db, redis] = await Promise.all([freshDatabase(), privateRedis()]);
    const env = {
      DATABASE_URL: db.url,
      REDIS_URL: redis.url,
      WATCHER_KEY,
      RATE_LIMIT_PER_IP: '1000000',
      TRUST_PROXY: 'true',
    };
    [a, b] = await Promise.all([startServer(env), startServer(env)]);
  });
  afterAll(async () => {
    await Promise.all([a?.kill(), b?.kill()]);
    await redis?.kill();
    await db?.drop();
  });

  it('answers everything while Redis is away, loses nothing, and shares state again when it is back', async () => {
    const figures = { requests: 0, ok: 0, fiveXX: 0, transportErrors: 0, acknowledged: [] as string[] };
    const count = (status: number) => {
      figures.requests++;
      if (status < 400) figures.ok++;
      else if (status >= 500) figures.fiveXX++;
    };
    let running = true;
    const writer = async (n: number) => {
      while (running) {
        try {
          const id = await createOne(n % 2 ? a.base : b.base, `redis-writer-${n}`);
          count(id ? 201 : 500);
          if (id) figures.acknowledged.push(id);
        } catch {
          figures.transportErrors++;
        }
      }
    };
    const reader = async (n: number) => {
      while (running) {
        try {
          const path = n % 2 ? '/stats' : '/orders?limit=5';
          const response = await fetch(`${(n % 2 ? a : b).base}${path}`, { signal: AbortSignal.timeout(8_000) });
          await response.arrayBuffer();
          count(response.status);
        } catch {
          figures.transportErrors++;
        }
        await sleep(10);
      }
    };
    const load = [...Array.from({ length: 4 }, (_, n) => writer(n)), ...Array.from({ length: 2 }, (_, n) => reader(n))];

    // A subscriber on A follows one user; B's orders for that user reach it through Redis.
    const userId = `redis-fault-${randomBytes(4).toString('hex')}`;
    let sub: Subscription | undefined;
    const timeline: Record<string, number> = {};
    try {
      sub = await subscribeSse(a.base, USER_ORDERS, { userId });
      const fromB = await untilDelivered(sub, () => createOne(b.base, userId));
      expect(fromB).toBeDefined();

      await sleep(500);
      const killedAt = performance.now();
      await redis.kill();

      // While Redis is away: A's own change still reaches A's subscriber; writes, escrow events and /stats answer.
      const own = await createOne(a.base, userId);
      expect(own).toBeDefined();
      await sub.inbox.take("A's own order while Redis is down", (o) => o.orderId === own);
      const order = (await fetch(`${a.base}/orders/${own}`).then((r) => r.json())) as { result: { source_intent: { swap_id: string } } };
      const recorded = await fetch(`${a.base}/intents/${order.result.source_intent.swap_id}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${WATCHER_KEY}` },
        body: JSON.stringify({
          kind: 'create',
          tx_hash: `0x${randomBytes(32).toString('hex')}`,
          block_number: 1,
          timestamp: `${new Date().toISOString().slice(0, 19)}Z`,
        }),
      });
      expect(recorded.status).toBe(200);
      for (const server of [a, b]) {
        const stats = await fetch(`${server.base}/stats`);
        expect(stats.status).toBe(200);
        const ready = await fetch(`${server.base}/ready`);
        expect(ready.status).toBe(200);
        expect(((await ready.json()) as { result: unknown }).result).toEqual({ database: 'ok', redis: 'down' });
      }
      await sleep(Math.max(0, 3_000 - (performance.now() - killedAt)));
      timeline.downMs = Math.round(performance.now() - killedAt);

      // Redis is back, empty: fan-out, the shared cache and the shared rate limits resume by themselves.
      const restartedAt = performance.now();
      await redis.start();
      const resumed = await untilDelivered(sub, () => createOne(b.base, userId), 15_000);
      expect(resumed).toBeDefined();
      timeline.fanOutResumedMs = Math.round(performance.now() - restartedAt);
    } finally {
      running = false;
      await Promise.all(load);
      await sub?.close();
    }

    await eventually(async () => {
      const ip = `10.${randomBytes(3).join('.')}`;
      const remaining = [];
      for (const server of [a, b, a]) {
        const response = await fetch(`${server.base}/chains`, { headers: { 'x-forwarded-for': ip } });
        remaining.push(Number(response.headers.get('ratelimit-remaining')));
      }
      return remaining.join() === '999999,999998,999997';
    });
    await eventually(async () => {
      const [fromA, fromB] = await Promise.all([a, b].map((s) => fetch(`${s.base}/stats`).then((r) => r.text())));
      return fromA === fromB;
    });

    // Nothing acknowledged is lost.
    let missing = 0;
    for (const id of figures.acknowledged) if ((await fetch(`${a.base}/orders/${id}`)).status !== 200) missing++;
    console.log('redis-down figures', { ...figures, acknowledged: figures.acknowledged.length, missing, ...timeline });

    expect(figures.fiveXX).toBe(0);
    expect(figures.transportErrors).toBe(0);
    expect(missing).toBe(0);
    expect(figures.acknowledged.length).toBeGreaterThan(0);
    for (const server of [a, b]) {
      expect(server.child.exitCode).toBeNull();
      expect(server.output()).not.toMatch(/unhandled rejection/);
    }
  });
});

/** Creates orders until one of them reaches the subscriber; resolves with its id (undefined on time-out). */
async function untilDelivered(sub: Subscription, create: () => Promise<string | undefined>, ms = 5_000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const id = await create();
    try {
      await sub.inbox.take('an order from the other instance', (o) => o.orderId === id, 300);
      return id;
    } catch {
      // not through yet: Redis (re)connecting, or B's SUBSCRIBE not yet in place
    }
  }
  return undefined;
}

async function eventually(check: () => Promise<boolean>, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`still false after ${ms} ms`);
    await sleep(100);
  }
}
