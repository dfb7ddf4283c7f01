import { describe, expect } from 'vitest';
import { it, type OpenApp } from './support/app.ts';
import { makeOrder } from './support/fixtures.ts';
import { cleanAfterEach, FAST, Receiver, register, sleep, until } from './support/webhook-receiver.ts';

/** Webhook deliveries that keep failing: the retry window, disabling an endpoint, and the outbox sweep. */

let receiver: Receiver;
it.override('appOptions', { env: FAST });
cleanAfterEach(() => receiver);

describe('giving up', () => {
  async function failingApp(apps: OpenApp, env: Record<string, string>) {
    receiver = await new Receiver().start();
    receiver.answer = (_n, res) => void res.writeHead(500).end('down');
    const app = await apps({ freshDatabase: true, env: { ...FAST, ...env } });
    const { id } = await register(app, receiver.url);
    await makeOrder(app, {}, 'lena');
    return { app, id };
  }

  it("fails a delivery after the retry window, its last attempt at the window's end", async ({ apps }) => {
    const { app, id } = await failingApp(apps, { WEBHOOK_RETRY_FOR_SECONDS: '1' });
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

  it('disables an endpoint failing too long, says why, and a redelivery enables it again', async ({ apps }) => {
    const { app, id } = await failingApp(apps, { WEBHOOK_DISABLE_AFTER_SECONDS: '1' });
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
  it('writes an event only while an enabled endpoint wants its type', async ({ apps }) => {
    const app = await apps({ freshDatabase: true, env: FAST });
    receiver = await new Receiver().start();
    try {
      const events = () => app.db.prisma.webhookEvent.findMany({ select: { userId: true }, orderBy: { seq: 'asc' } });
      await makeOrder(app, {}, 'nobody-listens');
      await register(app, receiver.url, { events: ['claim.confirmed'] });
      await makeOrder(app, {}, 'claims-only');
      expect(await events()).toEqual([]);
      const { id } = await register(app, receiver.url, { events: ['order.status_changed'] });
      await makeOrder(app, {}, 'heard');
      expect(await events()).toEqual([{ userId: 'heard' }]);
      // A disabled endpoint wants nothing either.
      await app.db.prisma.webhookEndpoint.update({ where: { id }, data: { disabledAt: new Date() } });
      await makeOrder(app, {}, 'disabled');
      expect(await events()).toEqual([{ userId: 'heard' }]);
    } finally {
      await app.close();
    }
  });

  it("asks in the create's own statement, so an unwanted event costs no row for the trigger to drop", async ({ apps }) => {
    const app = await apps({ freshDatabase: true, env: FAST });
    receiver = await new Receiver().start();
    try {
      // Without the trigger, only the statement's own check keeps the row out.
      await app.db.prisma.$executeRawUnsafe('DROP TRIGGER webhook_events_wanted ON webhook_events');
      await makeOrder(app, {}, 'nobody-listens');
      expect(await app.db.prisma.webhookEvent.count()).toBe(0);
      await register(app, receiver.url, { events: ['order.status_changed'] });
      await makeOrder(app, {}, 'heard');
      expect(await app.db.prisma.webhookEvent.findMany({ select: { userId: true } })).toEqual([{ userId: 'heard' }]);
    } finally {
      await app.close();
    }
  });

  it('fans out the events no endpoint wants any more in one statement, not one each', async ({ apps }) => {
    const statements: string[] = [];
    const app = await apps({ freshDatabase: true, env: FAST, onQuery: (sql) => statements.push(sql) });
    receiver = await new Receiver().start();
    try {
      const { id } = await register(app, receiver.url);
      for (const user of ['a', 'b', 'c']) await makeOrder(app, {}, user);
      // Written while the endpoint wanted them; gone before the fan-out.
      expect((await app.rest('DELETE', `/webhooks/${id}`)).status).toBe(200);
      statements.length = 0;
      await app.runtime.webhooks.tick();
      expect(statements.filter((sql) => /UPDATE webhook_events SET data/.test(sql))).toHaveLength(1);
      expect(await app.db.prisma.webhookEvent.count({ where: { fannedOutAt: null } })).toBe(0);
      expect(await app.db.prisma.webhookDelivery.count()).toBe(0);
    } finally {
      await app.close();
    }
  });

  it('drops events that reached no endpoint a day after their fan-out, and keeps those with deliveries', async ({ apps }) => {
    const app = await apps({ freshDatabase: true, env: FAST });
    receiver = await new Receiver().start();
    try {
      // The endpoint wants the type, but its filter leaves one user's events without a delivery.
      await register(app, receiver.url, { users: ['heard'] });
      await makeOrder(app, {}, 'unheard');
      await makeOrder(app, {}, 'heard');
      await until(app, () => receiver.received.length >= 1);
      const count = () => app.db.prisma.webhookEvent.count();
      expect(await count()).toBe(2);
      await app.runtime.webhooks.sweep();
      expect(await count()).toBe(2);
      app.clock.advance(25 * 3600);
      await app.runtime.webhooks.sweep();
      // Both orders expired meanwhile (the sweep wrote those events, not yet fanned out); of the creation
      // events, the one that reached no endpoint is gone.
      const created = await app.db.prisma.webhookEvent.findMany({ where: { status: 'pending' }, select: { userId: true } });
      expect(created).toEqual([{ userId: 'heard' }]);
      expect(await app.db.prisma.webhookEvent.count({ where: { status: 'expired' } })).toBe(2);
    } finally {
      await app.close();
    }
  });
});
