import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { describe, expect } from 'vitest';
import { createTestApp, type Json, type TestApp, it } from './support/app.ts';
import { escrowEvent, postEvent } from './support/events.ts';
import { makeOrder, makeQuote, newSecret, orderBody } from './support/fixtures.ts';

/** A real HTTP receiver on loopback; `answer` decides each reply. */
interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}
class Receiver {
  received: Received[] = [];
  answer: (n: number, res: ServerResponse, got: Received) => void = (_n, res) => res.end('ok');
  private server!: Server;
  url = '';
  async start() {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const got = { headers: req.headers, body, at: Date.now() };
        this.received.push(got);
        this.answer(this.received.length, res, got);
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', () => r()));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}/hook`;
    return this;
  }
  close() {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(r));
  }
  bodies(): Json[] {
    return this.received.map((r) => JSON.parse(r.body));
  }
}

const FAST = {
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_RETRY_BASE_MS: '20',
  WEBHOOK_RETRY_MAX_MS: '40',
  WEBHOOK_TIMEOUT_MS: '300',
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Ticks the worker until `done` holds (deliveries wait for their backoff, in ms). */
async function until(t: TestApp, done: () => boolean, ms = 10_000) {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error('timed out waiting for deliveries');
    await t.runtime.webhooks.tick();
    await sleep(15);
  }
}

async function register(t: TestApp, url: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const reply = await t.rest(
    'POST',
    '/webhooks',
    { url, events: ['order.status_changed', 'claim.confirmed', 'claim.failed'], ...extra },
    headers,
  );
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.result as { id: string; secret: string };
}

let receiver: Receiver;
it.override('appOptions', { env: FAST });
it.afterEach(async ({ t }) => {
  await receiver?.close();
  for (const endpoint of (await t.rest('GET', '/webhooks')).body.result) await t.rest('DELETE', `/webhooks/${endpoint.id}`);
  // Deliveries of earlier tests are gone with their endpoints; events already fanned out stay behind.
  await t.runtime.webhooks.tick();
});

describe('webhook endpoints', () => {
  it('registers an endpoint with a whsec_ secret shown only once, lists and deletes it', async ({ t }) => {
    receiver = await new Receiver().start();
    const created = await register(t, receiver.url, { users: ['alice'], chains: ['bitcoin'] });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(created).toMatchObject({ url: receiver.url, users: ['alice'], chains: ['bitcoin'], enabled: true });
    const listed = (await t.rest('GET', '/webhooks')).body.result;
    expect(listed.map((e: { id: string }) => e.id)).toEqual([created.id]);
    expect(JSON.stringify(listed)).not.toContain(created.secret);
    expect((await t.rest('DELETE', `/webhooks/${created.id}`)).status).toBe(200);
    expect((await t.rest('DELETE', `/webhooks/${created.id}`)).status).toBe(404);
  });

  it('refuses bad input with the error envelope naming the field', async ({ t }) => {
    const noEvents = await t.rest('POST', '/webhooks', { url: 'https://example.com/hook', events: [] });
    expect(noEvents).toMatchObject({ status: 400, body: { status: 'Error', result: 'events must name at least one event type' } });
    const badEvent = await t.rest('POST', '/webhooks', { url: 'https://example.com/hook', events: ['order.created'] });
    expect(badEvent.status).toBe(400);
    expect(badEvent.body.result).toMatch(/^events must hold only order.status_changed/);
    const badUrl = await t.rest('POST', '/webhooks', { url: 'ftp://example.com', events: ['claim.failed'] });
    expect(badUrl.body.result).toBe('url must be an absolute http:// or https:// URL');
    const unknownChain = await t.rest('POST', '/webhooks', { url: 'https://example.com/h', events: ['claim.failed'], chains: ['mars'] });
    expect(unknownChain.status).toBe(400);
  });
});

describe('delivery', () => {
  it('signs per Standard Webhooks (verified by the standardwebhooks library); data is the REST order plus previous_status', async ({
    t,
  }) => {
    receiver = await new Receiver().start();
    const { secret } = await register(t, receiver.url);
    const order = await makeOrder(t, {}, 'alice');
    await until(t, () => receiver.received.length >= 1);
    const [got] = receiver.received;
    const payload = new Webhook(secret).verify(got!.body, got!.headers as Record<string, string>) as Record<string, unknown>;
    expect(payload.type).toBe('order.status_changed');
    expect(payload.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const rest = (await t.rest('GET', `/orders/${order.order_id}`)).body.result;
    expect(payload.data).toEqual({ ...rest, previous_status: null });
    expect(got!.headers['webhook-id']).toMatch(/^msg_/);
    // A tampered body fails verification.
    expect(() => new Webhook(secret).verify(got!.body.replace('pending', 'completed'), got!.headers as Record<string, string>)).toThrow();
  });

  it('retries after a 500 and after a timeout, logging each attempt', async ({ t }) => {
    receiver = await new Receiver().start();
    receiver.answer = (n, res) => {
      if (n === 1) return void res.writeHead(500).end('boom');
      if (n === 2) return; // never answers: the sender's timeout
      res.end('thanks');
    };
    const { id } = await register(t, receiver.url);
    await makeOrder(t, {}, 'bob');
    await until(t, () => receiver.received.length >= 3);
    const ids = new Set(receiver.received.map((r) => r.headers['webhook-id']));
    expect(ids.size).toBe(1);
    const [delivery] = (await t.rest('GET', `/webhooks/${id}/deliveries`)).body.result;
    expect(delivery).toMatchObject({ state: 'delivered', attempts: 3, last_status: 200, event_type: 'order.status_changed' });
    expect(delivery.attempt_log.map((a: { status_code: number | null }) => a.status_code)).toEqual([500, null, 200]);
    expect(delivery.attempt_log[0].response).toBe('boom');
    expect(delivery.attempt_log[1].error).toMatch(/timed out after 300 ms/);
    expect(delivery.attempt_log[1].latency_ms).toBeGreaterThanOrEqual(290);
    expect(delivery.attempt_log[2].response).toBe('thanks');

    // Observable: latency and failures per endpoint in the metrics, the backlog in /relayer/health.
    const metrics = (await t.rest('GET', '/metrics')).body as string;
    expect(metrics).toContain(`orderbook_webhook_delivery_duration_seconds_count{endpoint="${id}",result="failure"} 2`);
    expect(metrics).toContain(`orderbook_webhook_delivery_duration_seconds_count{endpoint="${id}",result="success"} 1`);
    expect(metrics).toMatch(/orderbook_webhook_backlog\{stage="pending"\} 0/);
    const health = (await t.rest('GET', '/relayer/health')).body;
    expect(health.webhooks).toMatchObject({ outbox_depth: 0, pending_deliveries: 0 });
  });

  it("delivers one order's events in order, even when the first needs retries", async ({ t }) => {
    receiver = await new Receiver().start();
    receiver.answer = (n, res) => (n <= 2 ? void res.writeHead(503).end() : void res.end());
    await register(t, receiver.url);
    const order = await makeOrder(t, {}, 'carol');
    expect((await postEvent(t, order.source_intent.swap_id, escrowEvent('create', 100))).status).toBe(200);
    expect((await postEvent(t, order.destination_intent.swap_id, escrowEvent('create', 200))).status).toBe(200);
    await until(t, () => receiver.bodies().filter((b) => b.data.order_id === order.order_id).length >= 5);
    const statuses = receiver.bodies().map((b) => `${b.data.previous_status}->${b.data.status}`);
    // The first event fails twice; the later ones wait behind it.
    expect(statuses).toEqual([
      'null->pending',
      'null->pending',
      'null->pending',
      'pending->source_created',
      'source_created->destination_created',
    ]);
  });

  it('only sends the events and users an endpoint asked for', async ({ t }) => {
    receiver = await new Receiver().start();
    await register(t, receiver.url, { users: ['dave'], events: ['order.status_changed'] });
    await makeOrder(t, {}, 'erin');
    const mine = await makeOrder(t, {}, 'dave');
    await until(t, () => receiver.received.length >= 1);
    await t.runtime.webhooks.tick();
    expect(receiver.bodies().map((b) => b.data.order_id)).toEqual([mine.order_id]);
  });

  it("signs with both secrets during a rotation's grace period", async ({ t }) => {
    receiver = await new Receiver().start();
    const { id, secret: old } = await register(t, receiver.url);
    const rotated = await t.rest('POST', `/webhooks/${id}/rotate-secret`, { grace_seconds: 3600 });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.result.secret as string;
    expect(fresh).not.toBe(old);
    expect(rotated.body.result.previous_secret_expires_at).toBeTruthy();
    await makeOrder(t, {}, 'frank');
    await until(t, () => receiver.received.length >= 1);
    const [got] = receiver.received;
    expect(String(got!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [old, fresh])
      expect(() => new Webhook(secret).verify(got!.body, got!.headers as Record<string, string>)).not.toThrow();
  });

  it('redelivers an event on request, with the same webhook-id', async ({ t }) => {
    receiver = await new Receiver().start();
    const { id } = await register(t, receiver.url);
    await makeOrder(t, {}, 'gina');
    await until(t, () => receiver.received.length >= 1);
    const [delivery] = (await t.rest('GET', `/webhooks/${id}/deliveries`)).body.result;
    const again = await t.rest('POST', `/webhooks/${id}/deliveries/${delivery.id}/redeliver`);
    expect(again.status).toBe(202);
    expect(again.body.result).toMatchObject({ state: 'pending', event_id: delivery.event_id });
    await until(t, () => receiver.received.length >= 2);
    expect(receiver.received[1]!.headers['webhook-id']).toBe(delivery.event_id);
    expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body);
  });

  it("announces the relayer's claim outcome (claim.confirmed) with the claim as REST returns it", async ({ t }) => {
    receiver = await new Receiver().start();
    await register(t, receiver.url, { events: ['claim.confirmed', 'claim.failed'] });
    const { secret, commitmentHash } = newSecret();
    const order = (await t.rest('POST', '/orders', orderBody(await makeQuote(t), { commitment_hash: commitmentHash }, 'kate'))).body.result;
    await postEvent(t, order.source_intent.swap_id, escrowEvent('create', 10, {}, t.clock.now()));
    await postEvent(t, order.destination_intent.swap_id, escrowEvent('create', 2000, {}, t.clock.now()));
    expect((await t.rest('POST', '/relayer/claims', { order_id: order.order_id, commitment: secret })).status).toBe(202);
    await t.runtime.worker.tick();
    await t.runtime.chain.flush();
    await t.runtime.worker.tick();
    await until(t, () => receiver.received.length >= 1);
    const [event] = receiver.bodies();
    expect(event.type).toBe('claim.confirmed');
    expect(event.data).toEqual((await t.rest('GET', `/relayer/claims/${order.order_id}`)).body.result);
    expect(event.data.status).toBe('confirmed');
    await t.runtime.webhooks.tick();
    // Only the claim events this endpoint asked for: none of the order's status changes.
    expect(receiver.received).toHaveLength(1);
  });

  it('announces a clock-driven change (expired) from the sweep', async ({ t }) => {
    receiver = await new Receiver().start();
    await register(t, receiver.url);
    await t.runtime.webhooks.sweep(); // the sweep's starting mark
    const order = await makeOrder(t, {}, 'hank');
    await until(t, () => receiver.received.length >= 1);
    t.clock.advance(t.config.orderDeadlineSeconds + 1);
    try {
      await t.runtime.webhooks.sweep();
      const expiredOf = () => receiver.bodies().filter((b) => b.data.order_id === order.order_id && b.data.status === 'expired');
      await until(t, () => expiredOf().length >= 1);
      expect(expiredOf()[0].data).toMatchObject({ previous_status: 'pending' });
      // Orders of earlier tests expired too, each announced once.
      const expiredIds = receiver
        .bodies()
        .filter((b) => b.data.status === 'expired')
        .map((b) => b.data.order_id);
      expect(new Set(expiredIds).size).toBe(expiredIds.length);
      await t.runtime.webhooks.sweep();
      await t.runtime.webhooks.tick();
      expect(receiver.bodies().filter((b) => b.data.status === 'expired')).toHaveLength(expiredIds.length);
    } finally {
      t.clock.advance(-(t.config.orderDeadlineSeconds + 1));
    }
  });
});

describe('giving up', () => {
  async function failingApp(env: Record<string, string>) {
    receiver = await new Receiver().start();
    receiver.answer = (_n, res) => void res.writeHead(500).end('down');
    const app = await createTestApp({ env: { ...FAST, ...env } });
    const { id } = await register(app, receiver.url);
    await makeOrder(app, {}, 'lena');
    return { app, id };
  }

  it("fails a delivery after the retry window, its last attempt at the window's end", async () => {
    const { app, id } = await failingApp({ WEBHOOK_RETRY_FOR_SECONDS: '1' });
    try {
      const deliveries = async () => (await app.rest('GET', `/webhooks/${id}/deliveries`)).body.result;
      const end = Date.now() + 15_000;
      while ((await deliveries())[0]?.state !== 'failed' && Date.now() < end) {
        await app.runtime.webhooks.tick();
        await sleep(50);
      }
      const [delivery] = await deliveries();
      expect(delivery.state).toBe('failed');
      expect(delivery.attempts).toBeGreaterThan(2);
      const last = delivery.attempt_log.at(-1);
      expect(Date.parse(last.started_at) - Date.parse(delivery.created_at)).toBeGreaterThanOrEqual(1_000);
      expect(Date.parse(last.started_at) - Date.parse(delivery.created_at)).toBeLessThan(3_000);
      const attempts = receiver.received.length;
      await app.runtime.webhooks.tick();
      expect(receiver.received).toHaveLength(attempts);
    } finally {
      await app.close();
    }
  });

  it('disables an endpoint failing too long, says why, and a redelivery enables it again', async () => {
    const { app, id } = await failingApp({ WEBHOOK_DISABLE_AFTER_SECONDS: '1' });
    try {
      const endpoint = async () => (await app.rest('GET', '/webhooks')).body.result[0];
      const end = Date.now() + 15_000;
      while ((await endpoint()).enabled && Date.now() < end) {
        await app.runtime.webhooks.tick();
        await sleep(50);
      }
      const disabled = await endpoint();
      expect(disabled.enabled).toBe(false);
      expect(disabled.disabled_reason).toMatch(/^every attempt failed since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ; last: HTTP 500$/);
      // Nothing is sent to a disabled endpoint, and events meanwhile are not queued for it.
      const before = receiver.received.length;
      await makeOrder(app, {}, 'lena');
      await app.runtime.webhooks.tick();
      await sleep(100);
      await app.runtime.webhooks.tick();
      expect(receiver.received).toHaveLength(before);
      receiver.answer = (_n, res) => void res.end();
      const [delivery] = (await app.rest('GET', `/webhooks/${id}/deliveries`)).body.result;
      expect((await app.rest('POST', `/webhooks/${id}/deliveries/${delivery.id}/redeliver`)).status).toBe(202);
      await until(app, () => receiver.received.length >= before + 1);
      expect((await endpoint()).enabled).toBe(true);
    } finally {
      await app.close();
    }
  });
});

describe('outbox', () => {
  it('drops events no endpoint wanted a day after their fan-out, and keeps those with deliveries', async () => {
    const app = await createTestApp({ env: FAST });
    receiver = await new Receiver().start();
    try {
      await makeOrder(app, {}, 'unheard');
      await app.runtime.webhooks.tick();
      await register(app, receiver.url);
      await makeOrder(app, {}, 'heard');
      await until(app, () => receiver.received.length >= 1);
      const count = () => app.db.prisma.webhookEvent.count();
      expect(await count()).toBe(2);
      await app.runtime.webhooks.sweep();
      expect(await count()).toBe(2);
      app.clock.advance(25 * 3600);
      await app.runtime.webhooks.sweep();
      // Both orders expired meanwhile (the sweep wrote those events, not yet fanned out); of the creation
      // events, the one no endpoint wanted is gone.
      const created = await app.db.prisma.webhookEvent.findMany({ where: { status: 'pending' }, select: { userId: true } });
      expect(created).toEqual([{ userId: 'heard' }]);
      expect(await app.db.prisma.webhookEvent.count({ where: { status: 'expired' } })).toBe(2);
    } finally {
      await app.close();
    }
  });
});

describe('several instances', () => {
  it('sends each attempt from exactly one instance', async ({ t }) => {
    receiver = await new Receiver().start();
    receiver.answer = (_n, res) => setTimeout(() => res.end(), 20);
    const { id } = await register(t, receiver.url);
    // Two more instances on the same database, with a timeout no attempt reaches here.
    const env = { ...FAST, WEBHOOK_TIMEOUT_MS: '10000' };
    const [one, two] = await Promise.all([createTestApp({ db: t.db, env }), createTestApp({ db: t.db, env })]);
    try {
      const orders = [];
      for (let i = 0; i < 12; i++) orders.push(await makeOrder(t, {}, `multi-${i}`));
      const deadline = Date.now() + 20_000;
      while (receiver.received.length < orders.length && Date.now() < deadline) {
        await Promise.all([
          one!.runtime.webhooks.tick(),
          two!.runtime.webhooks.tick(),
          one!.runtime.webhooks.tick(),
          two!.runtime.webhooks.tick(),
        ]);
      }
      await Promise.all([one!.runtime.webhooks.tick(), two!.runtime.webhooks.tick()]);
      const ids = receiver.received.map((r) => r.headers['webhook-id']);
      expect(ids).toHaveLength(orders.length);
      expect(new Set(ids).size).toBe(orders.length);
      const deliveries = (await t.rest('GET', `/webhooks/${id}/deliveries`)).body.result;
      expect(deliveries.map((d: { attempts: number }) => d.attempts)).toEqual(orders.map(() => 1));
    } finally {
      await Promise.all([one!.close(), two!.close()]);
    }
  });
});

describe('targets', () => {
  it('never delivers to loopback or private addresses unless WEBHOOK_ALLOW_PRIVATE_TARGETS=true', async () => {
    receiver = await new Receiver().start();
    const strict = await createTestApp({ env: { ...FAST, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' } });
    try {
      for (const url of [receiver.url, 'http://10.0.0.8/hook', 'http://169.254.169.254/latest', 'http://[::1]:8080/']) {
        const refused = await strict.rest('POST', '/webhooks', { url, events: ['order.status_changed'] });
        expect(refused.status, url).toBe(400);
        expect(refused.body.result).toBe('url must not point to a loopback, private or link-local address');
      }
      // A name is checked after resolution, at each attempt: localhost resolves to loopback.
      const port = new URL(receiver.url).port;
      const { id } = await register(strict, `http://localhost:${port}/hook`);
      await makeOrder(strict, {}, 'ivan');
      await strict.runtime.webhooks.tick();
      const [delivery] = (await strict.rest('GET', `/webhooks/${id}/deliveries`)).body.result;
      expect(delivery.attempt_log[0].error).toMatch(/localhost resolves to (127\.0\.0\.1|::1), which is not a public address/);
      expect(receiver.received).toHaveLength(0);
    } finally {
      await strict.close();
    }
  });

  it('does not follow redirects', async ({ t }) => {
    receiver = await new Receiver().start();
    receiver.answer = (_n, res) => void res.writeHead(302, { location: 'http://10.0.0.8/' }).end();
    const { id } = await register(t, receiver.url);
    await makeOrder(t, {}, 'judy');
    await until(t, () => receiver.received.length >= 1);
    const [delivery] = (await t.rest('GET', `/webhooks/${id}/deliveries`)).body.result;
    expect(delivery.attempt_log[0]).toMatchObject({ status_code: 302 });
    expect(delivery.state).toBe('pending');
  });
});

describe('ownership', () => {
  it('an endpoint belongs to the key that made it', async () => {
    const keyed = await createTestApp({ env: { ...FAST, API_KEYS: 'key-a,key-b' } });
    try {
      const a = { authorization: 'Bearer key-a' };
      const b = { authorization: 'Bearer key-b' };
      const { id } = await register(keyed, 'https://example.com/a', {}, a);
      expect((await keyed.rest('GET', '/webhooks', undefined, b)).body.result).toEqual([]);
      expect((await keyed.rest('GET', '/webhooks', undefined, a)).body.result).toHaveLength(1);
      expect((await keyed.rest('DELETE', `/webhooks/${id}`, undefined, b)).status).toBe(404);
      expect((await keyed.rest('GET', `/webhooks/${id}/deliveries`, undefined, b)).status).toBe(404);
      expect((await keyed.rest('GET', '/webhooks')).status).toBe(401);
      const gql = await keyed.app.fetch('http://test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...b },
        body: JSON.stringify({ query: '{ webhookEndpoints { id } }' }),
      });
      expect(((await gql.json()) as { data: { webhookEndpoints: unknown[] } }).data.webhookEndpoints).toEqual([]);
    } finally {
      await keyed.close();
    }
  });
});
