import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { get, request } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { openTestDatabase, TEST_DB } from './support/database.ts';
import type { Json } from './support/app.ts';
import { newSecret, USER_BTC, USER_EVM } from './support/fixtures.ts';
import { startServer, type ServerProcess } from './support/server-process.ts';

/** One request on a connection of its own (no keep-alive), so the cluster can hand it to any worker. */
function getOnNewConnection(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    }).on('error', reject);
  });
}

/** A JSON POST on a connection of its own; the answer's status and body. */
function postOnNewConnection(url: string, body: unknown): Promise<{ status: number; body: Json }> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
      let answer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (answer += chunk));
      res.on('end', () => {
        try {
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(answer) });
        } catch (error) {
          reject(error);
        }
      });
    });
    req.on('error', reject);
    req.end(text);
  });
}

/** A subscription over SSE on a connection of its own, collecting the order ids it is told of. */
function subscribeOnNewConnection(url: string, userId: string): Promise<{ orderIds: string[]; close(): void }> {
  const body = JSON.stringify({ query: `subscription { userOrdersUpdated(userId: "${userId}") { orderId } }` });
  return new Promise((resolve, reject) => {
    const orderIds: string[] = [];
    const req = request(
      url,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json', accept: 'text/event-stream' } },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`subscription answered ${res.statusCode}`));
        res.setEncoding('utf8');
        let buffered = '';
        res.on('data', (chunk: string) => {
          buffered += chunk;
          for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
            const id = /"orderId":"([^"]+)"/.exec(buffered.slice(0, end))?.[1];
            if (id) orderIds.push(id);
            buffered = buffered.slice(end + 2);
          }
        });
        res.on('error', () => undefined);
        resolve({ orderIds, close: () => req.destroy() });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const pidsOf = (output: string, msg: string) =>
  new Set(
    output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { pid?: number; msg?: string })
      .filter((line) => line.msg?.startsWith(msg) && line.pid !== undefined)
      .map((line) => line.pid!),
  );

describe('WORKERS: several worker processes behind one port (src/cluster.ts)', () => {
  it('refuses more than one worker on embedded PGlite, whose data directory is single-process', async () => {
    expect(() => loadConfig({ WORKERS: '2' })).toThrow(ConfigError);
    expect(() => loadConfig({ WORKERS: '2' })).toThrow(/WORKERS: more than one worker needs DATABASE_URL/);
    // With replicas, who wrote lately must be shared: Redis, or every worker reads its own writes only.
    const replicated = { WORKERS: '2', DATABASE_URL: 'postgresql://a/b', DATABASE_REPLICA_URL: 'postgresql://c/b' };
    expect(() => loadConfig(replicated)).toThrow(/WORKERS: more than one worker with DATABASE_REPLICA_URL needs REDIS_URL/);
    expect(loadConfig({ ...replicated, REDIS_URL: 'redis://127.0.0.1:6379' }).workers).toBe(2);
    expect(() => loadConfig({ WORKERS: '0' })).toThrow(/WORKERS: must be at least 1/);
    expect(loadConfig({ WORKERS: '2', DATABASE_URL: 'postgresql://x@127.0.0.1/db' }).workers).toBe(2);
    expect(loadConfig({}).workers).toBe(1);
    // npm start says so and exits 2, as for every configuration error.
    const started = startServer({ WORKERS: '2', DATABASE_URL: '', DATA_DIR: '/nonexistent' });
    await expect(started).rejects.toThrow(/WORKERS: more than one worker needs DATABASE_URL/);
  });

  describe.skipIf(TEST_DB !== 'postgres')('on PostgreSQL', () => {
    let server: ServerProcess | undefined;
    let db: Awaited<ReturnType<typeof openTestDatabase>> | undefined;
    afterAll(async () => {
      await server?.kill();
      await db?.close();
    });

    it('two workers answer on one port, each its own process, and SIGTERM stops them all', async () => {
      db = await openTestDatabase();
      server = await startServer({ WORKERS: '2', DATABASE_URL: db.url!, REDIS_URL: '', LOG_LEVEL: 'info', NODE_ENV: 'production' });
      // Both workers listen (each logs it with its pid), neither is the primary.
      const deadline = Date.now() + 30_000;
      while (pidsOf(server.output(), 'order book listening').size < 2 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
      }
      // Every request is logged by the worker that answered it, with its pid.
      for (let i = 0; i < 20; i++) expect(await getOnNewConnection(`${server.base}/health`)).toBe(200);
      const output = server.output();
      const listening = [...pidsOf(output, 'order book listening')].filter(Boolean);
      expect(listening).toHaveLength(2);
      expect(listening).not.toContain(server.child.pid);
      const answered = pidsOf(output, 'request');
      expect([...answered].sort()).toEqual([...listening].sort());

      // Without Redis, the primary passes each change on to the other workers.
      await expectEverySubscriberHearsEveryChange(server);

      await server.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      for (const pid of listening) expect(existsSync(`/proc/${pid}`), `worker ${pid} still runs`).toBe(false);
      expect(pidsOf(server.output(), 'stopped').size).toBe(2);
    }, 90_000);

    it('with Redis too, a subscriber hears of each change once, whichever worker made it', async () => {
      db ??= await openTestDatabase();
      const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
      server = await startServer({
        WORKERS: '2',
        DATABASE_URL: db.url!,
        REDIS_URL: redisUrl,
        REDIS_KEY_PREFIX: `workers-${randomUUID()}:`,
        NODE_ENV: 'production',
      });
      await expectEverySubscriberHearsEveryChange(server);
      await server.kill('SIGTERM');
    }, 90_000);
  });
});

/**
 * Eight subscribers, each on a connection of its own (so spread over the workers), first hear of one order
 * each (their streams are live), then of four more, created on connections of their own: each exactly once.
 */
async function expectEverySubscriberHearsEveryChange(server: ServerProcess) {
  const userId = `workers-${randomUUID()}`;
  const subscribers = await Promise.all(Array.from({ length: 8 }, () => subscribeOnNewConnection(`${server.base}/graphql`, userId)));
  const until = (done: () => boolean, ms: number) =>
    (async () => {
      for (const end = Date.now() + ms; !done() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 50));
    })();
  const warmUp: string[] = [];
  for (let i = 0; i < 20 && subscribers.some((s) => s.orderIds.length === 0); i++) {
    warmUp.push(await createOrderOnNewConnection(server.base, userId));
    await until(() => subscribers.every((s) => s.orderIds.length > 0), 500);
  }
  // Every warm-up order heard by everyone before counting: one still on its way would count as one of the four.
  await until(() => subscribers.every((s) => warmUp.every((id) => s.orderIds.includes(id))), 10_000);
  const before = subscribers.map((s) => s.orderIds.length);
  const orderIds: string[] = [];
  for (let i = 0; i < 4; i++) orderIds.push(await createOrderOnNewConnection(server.base, userId));
  await until(() => subscribers.every((s, i) => s.orderIds.length >= before[i]! + orderIds.length), 10_000);
  // A moment more, so a second copy of an event would have arrived too.
  await new Promise((r) => setTimeout(r, 300));
  for (const [i, s] of subscribers.entries()) expect(s.orderIds.slice(before[i])).toEqual(orderIds);
  for (const s of subscribers) s.close();
}

async function createOrderOnNewConnection(base: string, userId: string): Promise<string> {
  const quote = await postOnNewConnection(`${base}/quotes`, {
    source: { asset: 'bitcoin:btc', amount: '10000000' },
    destination: { asset: 'ethereum:wbtc' },
  });
  expect(quote.status).toBe(201);
  const q = quote.body.result;
  const order = await postOnNewConnection(`${base}/orders`, {
    user_id: userId,
    quote_id: q.quote_id,
    source: { asset: q.source.asset, recipient: USER_BTC, amount: q.source.amount },
    destination: { asset: q.destination.asset, recipient: USER_EVM, amount: q.destination.amount },
    commitment_hash: newSecret().commitmentHash,
  });
  expect(order.status).toBe(201);
  return order.body.result.order_id;
}
