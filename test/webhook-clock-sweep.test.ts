import { describe, expect } from 'vitest';
import { WebhookWorker } from '../src/webhooks/worker.ts';
import { type TestApp, it } from './support/app.ts';
import { escrowEvent, postEvent } from './support/events.ts';
import { makeOrder } from './support/fixtures.ts';

// The format newId gives every event and delivery: a prefix and 16 bytes in base64url.
const EVENT_ID = /^msg_[A-Za-z0-9_-]{22}$/;
const DELIVERY_ID = /^dlv_[A-Za-z0-9_-]{22}$/;

// A receiver that is never reached: these tests stop at the fan-out.
it.override('appOptions', { env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });

interface EventRow {
  id: string;
  type: string;
  status: string;
  previous_status: string | null;
}

function eventsOf(t: TestApp, orderId: string): Promise<EventRow[]> {
  return t.db.prisma.$queryRaw<EventRow[]>`
    SELECT id, type, status, previous_status FROM webhook_events WHERE order_id = ${orderId} ORDER BY seq`;
}

describe('the clock sweep', () => {
  it('announces expired and time-based refunding once each, with the ids and fields of every other event', async ({ t, clock }) => {
    const registered = await t.rest('POST', '/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['order.status_changed'] });
    expect(registered.status).toBe(201);
    await t.runtime.webhooks.sweep(); // the sweep's starting mark

    const idle = await makeOrder(t, {}, 'sweep-idle');
    const funded = await makeOrder(t, {}, 'sweep-funded');
    expect((await postEvent(t, funded.source_intent.swap_id, escrowEvent('create', 100))).status).toBe(200);
    expect((await postEvent(t, funded.destination_intent.swap_id, escrowEvent('create', 200))).status).toBe(200);

    // Past the order deadline: the idle order expires.
    clock.advance(t.config.orderDeadlineSeconds + 1);
    await t.runtime.webhooks.sweep();
    const idleEvents = await eventsOf(t, idle.order_id);
    expect(idleEvents.map((e) => [e.status, e.previous_status])).toEqual([
      ['pending', null],
      ['expired', 'pending'],
    ]);

    // Past the destination's cancel_after: the funded order is refunding.
    clock.advance(Number(funded.destination_intent.cancel_after) - t.clock.now().getTime() / 1000 + 1);
    await t.runtime.webhooks.sweep();
    const fundedEvents = await eventsOf(t, funded.order_id);
    expect(fundedEvents.at(-1)).toMatchObject({ status: 'refunding', previous_status: 'destination_created' });

    // Swept once: another sweep over the same time writes nothing.
    await t.runtime.webhooks.sweep();
    expect(await eventsOf(t, idle.order_id)).toHaveLength(2);
    expect(await eventsOf(t, funded.order_id)).toHaveLength(fundedEvents.length);

    for (const event of [...idleEvents, ...fundedEvents]) {
      expect(event.type).toBe('order.status_changed');
      expect(event.id).toMatch(EVENT_ID);
    }
    while ((await t.runtime.webhooks.fanOut()) > 0) {
      // until the outbox is empty
    }
    const deliveries = await t.db.prisma.webhookDelivery.findMany({ where: { orderId: { in: [idle.order_id, funded.order_id] } } });
    expect(deliveries).toHaveLength(idleEvents.length + fundedEvents.length);
    for (const delivery of deliveries) expect(delivery.id).toMatch(DELIVERY_ID);
  });

  it('works off a backlog in steps, every order once, a second never split between two steps', async ({ apps }) => {
    const statements: string[] = [];
    const app = await apps({
      freshDatabase: true,
      env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
      onQuery: (sql) => statements.push(sql),
    });
    try {
      expect((await app.rest('POST', '/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['order.status_changed'] })).status).toBe(201);
      // Steps of two orders: the backlog below takes three.
      const worker = new WebhookWorker({
        prisma: app.db.prisma,
        logger: app.logger,
        settings: app.config.webhooks,
        render: async () => null,
        now: () => app.clock.now(),
        sweepStep: 2,
      });
      await worker.sweep(); // the starting mark
      // Deadlines one second apart, three of them in the same second.
      const orders = [];
      for (const [user, gap] of [
        ['first', 1],
        ['same-a', 0],
        ['same-b', 0],
        ['same-c', 1],
        ['last', 0],
      ] as const) {
        orders.push(await makeOrder(app, {}, `backlog-${user}`));
        app.clock.advance(gap);
      }
      app.clock.advance(app.config.orderDeadlineSeconds + 5);
      statements.length = 0;
      expect(await worker.sweep()).toBe(orders.length);
      expect(statements.filter((sql) => /UPDATE webhook_sweeps SET swept_until/.test(sql))).toHaveLength(3);
      for (const order of orders) {
        expect((await eventsOf(app, order.order_id)).map((e) => [e.status, e.previous_status])).toEqual([
          ['pending', null],
          ['expired', 'pending'],
        ]);
      }
      // Caught up: the next sweep writes nothing.
      expect(await worker.sweep()).toBe(0);
    } finally {
      await app.close();
    }
  });
});
