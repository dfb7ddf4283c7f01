import { expect } from 'vitest';
import { it } from './support/app.ts';

it.override('appOptions', { env: { API_KEYS: 'cap-key-one,cap-key-two', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });

/** The 20-endpoint cap per key holds under concurrent registrations (src/webhooks/endpoints.ts). */
it('60 concurrent registrations by one key give exactly 20 endpoints, and another key is unaffected', async ({ t }) => {
  const register = (key: string, i: number) =>
    t.rest(
      'POST',
      '/webhooks',
      { url: `https://hooks.example/${i}`, events: ['order.status_changed'] },
      { authorization: `Bearer ${key}` },
    );
  const replies = await Promise.all(Array.from({ length: 60 }, (_, i) => register('cap-key-one', i)));
  const statuses = replies.map((r) => r.status);
  expect(statuses.filter((s) => s === 201)).toHaveLength(20);
  expect(statuses.filter((s) => s === 409)).toHaveLength(40);
  expect(replies.find((r) => r.status === 409)!.body).toEqual({
    status: 'Error',
    result: 'a key may register at most 20 webhook endpoints',
  });
  const listed = await t.rest('GET', '/webhooks', undefined, { authorization: 'Bearer cap-key-one' });
  expect(listed.body.result).toHaveLength(20);
  expect((await register('cap-key-two', 0)).status).toBe(201);
});
