import { Webhook } from 'standardwebhooks';
import { describe, expect } from 'vitest';
import { it } from './support/app.ts';
import { escrowEvent, postEvent } from './support/events.ts';
import { makeOrder, makeQuote, newSecret, orderBody } from './support/fixtures.ts';
import { cleanAfterEach, FAST, Receiver, register, until } from './support/webhook-receiver.ts';

/** Webhook delivery: signatures, retries, order, filters, rotation, redelivery, one sender per attempt. */

let receiver: Receiver;
it.override('appOptions', { env: FAST });
cleanAfterEach(() => receiver);

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

  it('announces a clock-driven change (expired) from the sweep', async ({ t, clock }) => {
    receiver = await new Receiver().start();
    await register(t, receiver.url);
    await t.runtime.webhooks.sweep(); // the sweep's starting mark
    const order = await makeOrder(t, {}, 'hank');
    await until(t, () => receiver.received.length >= 1);
    clock.advance(t.config.orderDeadlineSeconds + 1);
    await t.runtime.webhooks.sweep();
    const expiredOf = () => receiver.bodies().filter((b) => b.data.order_id === order.order_id && b.data.status === 'expired');
    await until(t, () => expiredOf().length >= 1);
    expect(expiredOf()[0].data).toMatchObject({ previous_status: 'pending' });
    // A round sends a few deliveries per endpoint: tick until every expiry due has gone out.
    while ((await t.runtime.webhooks.tick()) > 0) {
      // until nothing is due
    }
    // Every order of the file's database expired with it, each announced once.
    const expiredIds = receiver
      .bodies()
      .filter((b) => b.data.status === 'expired')
      .map((b) => b.data.order_id);
    expect(new Set(expiredIds).size).toBe(expiredIds.length);
    await t.runtime.webhooks.sweep();
    await t.runtime.webhooks.tick();
    expect(receiver.bodies().filter((b) => b.data.status === 'expired')).toHaveLength(expiredIds.length);
  });
});

describe('several instances', () => {
  it('sends each attempt from exactly one instance', async ({ t, apps }) => {
    receiver = await new Receiver().start();
    receiver.answer = (_n, res) => setTimeout(() => res.end(), 20);
    const { id } = await register(t, receiver.url);
    // Two more instances on the same database, with a timeout no attempt reaches here.
    const env = { ...FAST, WEBHOOK_TIMEOUT_MS: '10000' };
    const [one, two] = await Promise.all([apps({ env }), apps({ env })]);
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
