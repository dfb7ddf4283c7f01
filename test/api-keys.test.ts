import { Writable } from 'node:stream';
import { describe, expect } from 'vitest';
import { createLogger } from '../src/logger.ts';
import { it } from './support/app.ts';
import { makeQuote, orderBody } from './support/fixtures.ts';

/** With API_KEYS set, every write needs one of the keys; reads stay open. */
const lines: string[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    lines.push(String(chunk));
    done();
  },
});
it.override('appOptions', { env: { API_KEYS: 'key-one,key-two' }, logger: createLogger('trace', sink) });

describe('API_KEYS', () => {
  const key = (k: string) => ({ authorization: `Bearer ${k}` });

  const quoteBody = { source: { asset: 'bitcoin:btc', amount: '10000000' }, destination: { asset: 'ethereum:wbtc' } };

  it('refuses writes without a key, or with a wrong one, with 401 before looking at the body', async ({ t }) => {
    for (const headers of [{}, { authorization: 'Basic a2V5LW9uZQ==' }] as Record<string, string>[]) {
      const reply = await t.rest('POST', '/quotes', quoteBody, headers);
      expect(reply.status).toBe(401);
      expect(reply.headers.get('www-authenticate')).toBe('Bearer');
      expect(reply.body).toEqual({ status: 'Error', result: 'this write needs Authorization: Bearer <API key>' });
    }
    expect((await t.rest('POST', '/orders', { nonsense: true })).status).toBe(401);
    expect((await t.rest('POST', '/relayer/claims', {})).status).toBe(401);
  });

  it('accepts any configured key, and reads need none', async ({ t }) => {
    const quote = (await t.rest('POST', '/quotes', quoteBody, key('key-two'))).body.result;
    expect(quote.quote_id).toBeTruthy();
    const order = await t.rest('POST', '/orders', orderBody(quote), key('key-one'));
    expect(order.status).toBe(201);
    expect((await t.rest('GET', `/orders/${order.body.result.order_id}`)).status).toBe(200);
    expect((await t.rest('GET', '/stats')).status).toBe(200);
  });

  it('guards the GraphQL mutations the same way', async ({ t }) => {
    const mutation = `mutation { createQuote(input: { source: { asset: "bitcoin:btc", amount: "10000000" }, destination: { asset: "ethereum:wbtc" } }) { quoteId } }`;
    const anonymous = await t.gql(mutation);
    expect(anonymous.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const response = await t.app.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...key('key-one') },
      body: JSON.stringify({ query: mutation }),
    });
    expect((await response.json()).data.createQuote.quoteId).toBeTruthy();
  });

  it('never logs a key', async ({ t }) => {
    // Its own requests with each key, a wrong one and a Basic one, on a write and a read, logged at trace level.
    const before = lines.length;
    for (const headers of [key('key-one'), key('key-two'), key('key-wrong'), { authorization: 'Basic a2V5LW9uZQ==' }]) {
      await t.rest('POST', '/quotes', quoteBody, headers);
      await t.rest('GET', '/stats', undefined, headers);
    }
    expect(lines.length - before).toBeGreaterThan(5);
    expect(lines.join('\n')).not.toMatch(/key-one|key-two|Bearer key/);
  });

  it('keeps makeQuote-style clients working when no keys are configured', async ({ apps }) => {
    const open = await apps({ env: {} });
    expect((await makeQuote(open)).quote_id).toBeTruthy();
  });
});
