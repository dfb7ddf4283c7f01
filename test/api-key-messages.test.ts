import { describe, expect } from 'vitest';
import { it } from './support/app.ts';

/** A 401 tells a missing key from an unknown one, and never calls a read a write. */
it.override('appOptions', { env: { API_KEYS: 'key-one,key-two' } });

const quoteBody = { source: { asset: 'bitcoin:btc', amount: '10000000' }, destination: { asset: 'ethereum:wbtc' } };
const bearer = (k: string) => ({ authorization: `Bearer ${k}` });

describe('API key messages', () => {
  it('tells a client its key is unknown, distinct from a missing one', async ({ t }) => {
    const unknown = await t.rest('POST', '/quotes', quoteBody, bearer('key-three'));
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('www-authenticate')).toBe('Bearer');
    expect(unknown.body.status).toBe('Error');
    expect(unknown.body.result).toMatch(/^unknown API key: this write needs Authorization: Bearer <API key>/);
    const missing = await t.rest('POST', '/quotes', quoteBody);
    expect(missing.body).toEqual({ status: 'Error', result: 'this write needs Authorization: Bearer <API key>' });
  });

  it('does not call a read that needs a key a write', async ({ t }) => {
    const missing = await t.rest('GET', '/webhooks');
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ status: 'Error', result: 'this request needs Authorization: Bearer <API key>' });
    const unknown = await t.rest('GET', '/webhooks', undefined, bearer('nope'));
    expect(unknown.status).toBe(401);
    expect(unknown.body.result).toMatch(/^unknown API key: this request needs/);
    expect(unknown.body.result).not.toContain('write');
  });

  it('says the same over GraphQL, with the UNAUTHENTICATED code', async ({ t }) => {
    const mutation = `mutation { createQuote(input: { source: { asset: "bitcoin:btc", amount: "10000000" }, destination: { asset: "ethereum:wbtc" } }) { quoteId } }`;
    const send = async (headers: Record<string, string>) => {
      const response = await t.app.fetch('http://test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ query: mutation }),
      });
      return (await response.json()).errors?.[0];
    };
    const unknown = await send(bearer('key-three'));
    expect(unknown?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(unknown?.message).toMatch(/^unknown API key/);
    const missing = await send({});
    expect(missing?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(missing?.message).toBe('this write needs Authorization: Bearer <API key>');
    const webhooks = await t.app.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer('nope') },
      body: JSON.stringify({ query: '{ webhookEndpoints { id } }' }),
    });
    expect((await webhooks.json()).errors?.[0]?.message).toMatch(/^unknown API key: managing webhooks needs/);
  });
});
