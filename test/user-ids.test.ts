import { describe, expect } from 'vitest';
import { it } from './support/app.ts';
import { makeOrder, makeQuote, orderBody } from './support/fixtures.ts';

/** The user id rule (src/domain/input.ts; README, Hardening), on create and on the by-user paths. */
describe('user ids', () => {
  it('refuses . and .. (no URL path segment can carry them), naming user_id', async ({ t }) => {
    for (const id of ['.', '..']) {
      const quote = await makeQuote(t);
      const reply = await t.rest('POST', '/orders', orderBody(quote, {}, id));
      expect(reply.status, id).toBe(400);
      expect(reply.body).toEqual({ status: 'Error', result: 'user_id must not be . or .. (it must fit in one URL path segment)' });
    }
    // A user id that holds dots among other characters is still one path segment.
    const order = await makeOrder(t, {}, '...');
    const listed = await t.rest('GET', '/orders/user/...');
    expect(listed.status).toBe(200);
    expect(listed.body.result.data.map((o: { order_id: string }) => o.order_id)).toContain(order.order_id);
  });

  it.for([
    ['U+0085 (C1 next line)', 'alice\u0085'],
    ['U+009B (C1 CSI)', 'alice\u009b'],
    ['U+200B (zero-width space)', 'ali\u200bce'],
    ['U+200D (zero-width joiner)', 'ali\u200dce'],
    ['U+FEFF (BOM)', '\ufeffalice'],
    ['U+202E (right-to-left override)', 'alice\u202egpj.exe'],
    ['U+2067 (right-to-left isolate)', 'alice\u2067x'],
    ['U+200F (right-to-left mark)', 'alice\u200f'],
    ['U+2028 (line separator)', 'alice\u2028bob'],
  ])('refuses %s in a user id', async ([, id], { t }) => {
    const quote = await makeQuote(t);
    const reply = await t.rest('POST', '/orders', orderBody(quote, {}, id));
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      status: 'Error',
      result: 'user_id must not contain control, invisible or bidirectional formatting characters',
    });
  });

  it('refuses a lone surrogate and U+FFFD, so the two cannot land on one user', async ({ t }) => {
    const quote = await makeQuote(t);
    // JSON.stringify writes a lone surrogate as \udc00, which the server's JSON parser keeps as one.
    const lone = await t.rest('POST', '/orders', orderBody(quote, {}, 'bob\udc00'));
    expect(lone.status).toBe(400);
    expect(lone.body.result).toBe('user_id must not contain unpaired surrogates');
    const replacement = await t.rest('POST', '/orders', orderBody(quote, {}, 'bob\ufffd'));
    expect(replacement.status).toBe(400);
    expect(replacement.body.result).toBe('user_id must not contain control, invisible or bidirectional formatting characters');
    // A paired surrogate (an emoji) is one character, and welcome.
    expect((await makeOrder(t, {}, 'bob\u{1F600}')).user_id).toBe('bob\u{1F600}');
  });

  it('normalises user ids to NFC: a decomposed and a composed é are one user', async ({ t }) => {
    const composed = 'jos\u00e9';
    const decomposed = 'jose\u0301';
    const first = await makeOrder(t, {}, decomposed);
    expect(first.user_id).toBe(composed);
    const second = await makeOrder(t, {}, composed);
    const listed = await t.rest('GET', `/orders/user/${encodeURIComponent(decomposed)}`);
    expect(listed.status).toBe(200);
    expect(listed.body.result.data.map((o: { order_id: string }) => o.order_id).sort()).toEqual([first.order_id, second.order_id].sort());
    const gql = await t.gql('query($u: String!) { ordersByUser(userId: $u) { data { orderId } } }', { u: decomposed });
    expect(gql.errors).toBeUndefined();
    expect(gql.data.ordersByUser.data).toHaveLength(2);
  });

  it('refuses the same ids on the by-user paths, naming user_id', async ({ t }) => {
    const reply = await t.rest('GET', `/orders/user/${encodeURIComponent('eve\u202e')}`);
    expect(reply.status).toBe(400);
    expect(reply.body.result).toBe('user_id must not contain control, invisible or bidirectional formatting characters');
  });
});
