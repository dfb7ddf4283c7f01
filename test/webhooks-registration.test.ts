import { describe, expect } from 'vitest';
import { it } from './support/app.ts';
import { cleanAfterEach, FAST, Receiver, register } from './support/webhook-receiver.ts';

/** Webhook endpoints: registering, listing, deleting, bad input, and whose key owns them. */

let receiver: Receiver;
it.override('appOptions', { env: FAST });
cleanAfterEach(() => receiver);

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
    expect(badEvent.body.result).toMatch(/^events\[0\] must be one of order.status_changed/);
    const badUrl = await t.rest('POST', '/webhooks', { url: 'ftp://example.com', events: ['claim.failed'] });
    expect(badUrl.body.result).toBe('url must be an absolute http:// or https:// URL');
    const unknownChain = await t.rest('POST', '/webhooks', { url: 'https://example.com/h', events: ['claim.failed'], chains: ['mars'] });
    expect(unknownChain.status).toBe(400);
  });
});

describe('ownership', () => {
  it('an endpoint belongs to the key that made it', async ({ apps }) => {
    const keyed = await apps({ freshDatabase: true, env: { ...FAST, API_KEYS: 'key-a,key-b' } });
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
