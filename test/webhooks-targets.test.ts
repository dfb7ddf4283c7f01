import { describe, expect } from 'vitest';
import { it } from './support/app.ts';
import { makeOrder } from './support/fixtures.ts';
import { cleanAfterEach, FAST, Receiver, register, until } from './support/webhook-receiver.ts';

/** Webhook targets: private addresses refused, redirects not followed. */

let receiver: Receiver;
it.override('appOptions', { env: FAST });
cleanAfterEach(() => receiver);

describe('targets', () => {
  it('never delivers to loopback or private addresses unless WEBHOOK_ALLOW_PRIVATE_TARGETS=true', async ({ apps }) => {
    receiver = await new Receiver().start();
    const strict = await apps({ env: { ...FAST, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' } });
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
