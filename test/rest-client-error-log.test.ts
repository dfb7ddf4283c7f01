import { Writable } from 'node:stream';
import { describe, expect } from 'vitest';
import { createLogger } from '../src/logger.ts';
import { it } from './support/app.ts';
import { USER_BTC, USER_EVM } from './support/fixtures.ts';

const lines: { level: number; msg: string; [field: string]: unknown }[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    lines.push(JSON.parse(String(chunk)));
    done();
  },
});

it.override('appOptions', { logger: createLogger('info', sink) });

const QUOTE = { source: { asset: 'bitcoin:btc', amount: '1000000' }, destination: { asset: 'ethereum:wbtc' } };
const clientErrors = () => lines.filter((l) => l.msg === 'client error');

/**
 * Every refused request leaves one `client error` line at info, with its code and the client's text in a
 * field: the REST routes that run no GraphQL (the creates, the rendered user page) as the documents do.
 */
describe('REST client errors in the log', () => {
  it('a refused create: once, at info, with its code and the request id', async ({ t }) => {
    lines.length = 0;
    const reply = await t.rest(
      'POST',
      '/quotes',
      { ...QUOTE, source: { ...QUOTE.source, amount: 1000000 } },
      { 'x-request-id': 'refused-1' },
    );
    expect(reply.status).toBe(400);
    expect(clientErrors()).toEqual([
      expect.objectContaining({ level: 30, code: 'BAD_REQUEST', reqId: 'refused-1', error: expect.stringContaining('source.amount') }),
    ]);
  });

  it('a quote used twice: QUOTE_CONSUMED, logged once', async ({ t }) => {
    const quote = (await t.rest('POST', '/quotes', QUOTE)).body.result;
    const order = (commitment: string) => ({
      user_id: 'log-user',
      quote_id: quote.quote_id,
      source: { asset: 'bitcoin:btc', recipient: USER_BTC, amount: quote.source.amount },
      destination: { asset: 'ethereum:wbtc', recipient: USER_EVM, amount: quote.destination.amount },
      commitment_hash: commitment.repeat(64),
    });
    expect((await t.rest('POST', '/orders', order('a'))).status).toBe(201);
    lines.length = 0;
    expect((await t.rest('POST', '/orders', order('b'))).status).toBe(409);
    expect(clientErrors()).toEqual([expect.objectContaining({ code: 'QUOTE_CONSUMED' })]);
  });

  it("a document's refusal is logged once, by GraphQL, and not again when REST names the field its way", async ({ t }) => {
    lines.length = 0;
    // A string GraphQL takes, which the input's rule refuses: the resolver refuses it, then REST parses it again.
    const reply = await t.rest('POST', '/relayer/claims', { order_id: 'a'.repeat(64), commitment: 'not-a-secret' });
    expect(reply.status).toBe(400);
    expect(reply.body.result).toMatch(/^commitment /);
    expect(clientErrors()).toEqual([expect.objectContaining({ code: 'BAD_REQUEST' })]);
  });

  it('an unknown path is no client error of a route', async ({ t }) => {
    lines.length = 0;
    expect((await t.rest('GET', '/no-such-path')).status).toBe(404);
    expect(clientErrors()).toEqual([]);
    expect(lines.filter((l) => l.level >= 40)).toEqual([]);
  });
});
