import { createServer, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOne, freshDatabase, postJson, startServer, type ServerProcess } from './server.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * kill -9 between the change and its delivery: every acknowledged order's event still reaches the
 * receiver, once the service runs again. The first server's webhook worker polls too rarely to send
 * anything before it dies, so every event is still in the outbox at the kill.
 */
describe('webhooks across kill -9', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let receiver: Server;
  let receiverUrl = '';
  const received: { headers: Record<string, string>; body: string }[] = [];
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    db = await freshDatabase();
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({ headers: req.headers as Record<string, string>, body });
        res.end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.kill('SIGKILL')));
    receiver?.closeAllConnections();
    receiver?.close();
    await db?.drop();
  });

  it('delivers the event of every acknowledged order after a crash', async () => {
    const env = { DATABASE_URL: db.url, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' };
    const first = await startServer({ ...env, WEBHOOK_POLL_MS: '600000', WEBHOOK_SWEEP_MS: '600000' });
    servers.push(first);
    const registered = await postJson(first.base, '/webhooks', { url: receiverUrl, events: ['order.status_changed'] });
    expect(registered.status).toBe(201);
    const secret = registered.body.result.secret as string;

    // Writers run while the server is killed: some orders are acknowledged, some cut off.
    const acknowledged: string[] = [];
    let running = true;
    const writer = async (n: number) => {
      while (running) {
        try {
          const id = await createOne(first.base, `crash-${n}`);
          if (id) acknowledged.push(id);
        } catch {
          await sleep(20);
        }
      }
    };
    const writers = Array.from({ length: 4 }, (_, n) => writer(n));
    await sleep(1_500);
    await first.kill('SIGKILL');
    running = false;
    await Promise.all(writers);
    expect(acknowledged.length).toBeGreaterThan(0);
    expect(received).toHaveLength(0);

    const second = await startServer({ ...env, WEBHOOK_POLL_MS: '100' });
    servers.push(second);
    const deadline = Date.now() + 60_000;
    const announced = () => new Set(received.map((r) => (JSON.parse(r.body) as { data: { order_id: string } }).data.order_id));
    while (acknowledged.some((id) => !announced().has(id)) && Date.now() < deadline) await sleep(200);
    const missing = acknowledged.filter((id) => !announced().has(id));
    console.log(
      `kill -9: ${acknowledged.length} acknowledged orders, ${received.length} deliveries after restart, ${missing.length} missing`,
    );
    expect(missing).toEqual([]);
    for (const r of received) expect(() => new Webhook(secret).verify(r.body, r.headers)).not.toThrow();
    // Each event once.
    const ids = received.map((r) => r.headers['webhook-id']);
    expect(new Set(ids).size).toBe(ids.length);
    await second.kill('SIGTERM');
  });
});
