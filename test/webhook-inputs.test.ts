import { describe, expect } from 'vitest';
import { it } from './support/app.ts';

// Registration checks the URL's address; these tests never send.
it.override('appOptions', { env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });

const URL = 'http://127.0.0.1:9/hook';

describe('webhook inputs are parsed like every other input', () => {
  it('names the field and the rule, as REST spells it', async ({ t }) => {
    const refused = async (method: string, path: string, body?: unknown) => {
      const reply = await t.rest(method, path, body);
      expect(reply.status, JSON.stringify(reply.body)).toBe(400);
      return reply.body.result;
    };
    expect(await refused('POST', '/webhooks', { events: ['claim.failed'] })).toBe('url is required');
    expect(await refused('POST', '/webhooks', { url: URL })).toBe('events is required');
    expect(await refused('POST', '/webhooks', { url: URL, events: 'claim.failed' })).toMatch(/^events must be a list of /);
    expect(await refused('POST', '/webhooks', { url: URL, events: ['claim.failed'], users: ['ok', ''] })).toBe(
      'users[1] must not be empty',
    );
    expect(await refused('POST', '/webhooks', { url: URL, events: ['claim.failed'], chains: ['a\u0000b'] })).toBe(
      'chains[0] must not contain control characters',
    );

    const endpoint = (await t.rest('POST', '/webhooks', { url: URL, events: ['claim.failed'] })).body.result;
    expect(await refused('POST', `/webhooks/${endpoint.id}/rotate-secret`, { grace_seconds: 604801 })).toBe(
      'grace_seconds must be an integer from 0 to 604800',
    );
    expect(await refused('POST', `/webhooks/${endpoint.id}/rotate-secret`, { grace_seconds: 1.5 })).toMatch(/^grace_seconds /);
    expect(await refused('GET', `/webhooks/${endpoint.id}/deliveries?limit=0`)).toBe('limit must be an integer from 1 to 100');
    expect(await refused('GET', `/webhooks/${endpoint.id}/deliveries?limit=abc`)).toBe('limit must be an integer from 1 to 100');
    expect((await t.rest('POST', `/webhooks/${endpoint.id}/rotate-secret`, { grace_seconds: 60 })).status).toBe(200);
    // grace_seconds has a default: no body at all is a rotation with it; a body must still be JSON.
    const bare = await t.rest('POST', `/webhooks/${endpoint.id}/rotate-secret`);
    expect(bare.status).toBe(200);
    expect(bare.body.result.secret).toMatch(/^whsec_/);
    // Many clients send Content-Type on every request: an empty JSON body is no body.
    const empty = await t.rest('POST', `/webhooks/${endpoint.id}/rotate-secret`, '', { 'content-type': 'application/json' });
    expect(empty.status).toBe(200);
    const form = await t.rest('POST', `/webhooks/${endpoint.id}/rotate-secret`, 'grace_seconds=5', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(form.status).toBe(415);
  });

  it('takes user ids by the rule of orders: NFC, nothing invisible, nothing a URL path cannot carry', async ({ t }) => {
    const register = (users: string[]) => t.rest('POST', '/webhooks', { url: URL, events: ['claim.failed'], users });
    for (const [user, rule] of [
      ['ali\u200bce', 'must not contain control, invisible or bidirectional formatting characters'],
      ['\u202ealice', 'must not contain control, invisible or bidirectional formatting characters'],
      ['a\u0085b', 'must not contain control, invisible or bidirectional formatting characters'],
      ['a\ud800', 'must not contain unpaired surrogates'],
      ['..', 'must not be . or .. (it must fit in one URL path segment)'],
    ]) {
      const reply = await register(['bob', user!]);
      expect(reply.status, JSON.stringify(reply.body)).toBe(400);
      expect(reply.body.result).toBe(`users[1] ${rule}`);
    }
    // Stored as orders store it, so the filter matches the orders of the user it names.
    const created = await register(['e\u0301'.normalize('NFD')]);
    expect(created.status).toBe(201);
    expect(created.body.result.users).toEqual(['\u00e9']);
  });

  it('names the field and the rule, as GraphQL spells it', async ({ t }) => {
    const created = await t.gql(`mutation { createWebhookEndpoint(input: { url: "${URL}", events: ["order.created"] }) { secret } }`);
    expect(created.errors?.[0]).toMatchObject({
      message: 'events[0] must be one of order.status_changed, claim.confirmed, claim.failed',
      extensions: { code: 'BAD_REQUEST' },
    });
    const endpoint = (await t.rest('POST', '/webhooks', { url: URL, events: ['claim.failed'] })).body.result;
    const rotated = await t.gql(`mutation { rotateWebhookSecret(input: { id: "${endpoint.id}", graceSeconds: -1 }) { secret } }`);
    expect(rotated.errors?.[0]?.message).toBe('graceSeconds must be an integer from 0 to 604800');
    const listed = await t.gql(`{ webhookDeliveries(endpointId: "${endpoint.id}", limit: 101) { id } }`);
    expect(listed.errors?.[0]?.message).toBe('limit must be an integer from 1 to 100');
  });
});
