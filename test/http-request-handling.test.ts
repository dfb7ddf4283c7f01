import { describe, expect } from 'vitest';
import { it } from './support/app.ts';

describe('HTTP surface', () => {
  it('answers /health in plain text and /ready in the envelope', async ({ t }) => {
    const health = await t.rest('GET', '/health');
    expect(health.status).toBe(200);
    expect(health.body).toBe('Online');
    expect(health.headers.get('content-type')).toMatch(/^text\/plain/);
    const ready = await t.rest('GET', '/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'Success', result: { database: 'ok' } });
  });

  it('sends a REST answer as one text body with its Content-Length, not a chunked stream', async ({ t }) => {
    // Yoga writes a text body of its own Response class to the socket in one call; the platform's
    // Response would be streamed chunk by chunk without a length, one more stream per answer.
    for (const path of ['/orders/user/nobody?limit=20', '/stats', '/nope']) {
      const response = await t.app.fetch(`http://test${path}`);
      const body = await response.text();
      expect(response.headers.get('content-length'), path).toBe(String(Buffer.byteLength(body)));
    }
  });

  it('404s an unknown path in the envelope', async ({ t }) => {
    const reply = await t.rest('GET', '/nope');
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ status: 'Error', result: expect.stringContaining('/nope') });
  });

  it('405s a wrong method with Allow', async ({ t }) => {
    const reply = await t.rest('DELETE', '/orders');
    expect(reply.status).toBe(405);
    expect(reply.headers.get('allow')).toBe('POST, GET');
    expect(reply.body.status).toBe('Error');
    const stats = await t.rest('POST', '/stats', {});
    expect(stats.status).toBe(405);
    expect(stats.headers.get('allow')).toBe('GET');
    // Paths other plugins serve to GET: the API document, its page, /metrics.
    for (const path of ['/openapi.json', '/docs', '/docs/redoc.standalone.js', '/metrics']) {
      const wrong = await t.rest('POST', path, {});
      expect(wrong.status, path).toBe(405);
      expect(wrong.headers.get('allow'), path).toBe('GET');
      expect(wrong.body, path).toEqual({ status: 'Error', result: `method POST is not allowed on ${path}; use GET` });
    }
    // HEAD is GET without the body on each of them.
    for (const path of ['/openapi.json', '/docs', '/metrics']) {
      expect((await t.app.fetch(`http://test${path}`, { method: 'HEAD' })).status, path).toBe(200);
    }
    // /graphql: GET and POST; any other method gets the envelope, with or without a body, before CSRF or GraphQL.
    for (const [method, headers] of [
      ['PUT', {}],
      ['DELETE', {}],
      ['PATCH', { 'content-type': 'application/json' }],
    ] as const) {
      const wrong = await t.app.fetch('http://test/graphql', {
        method,
        headers,
        body: method === 'PATCH' ? '{"query":"{ __typename }"}' : undefined,
      });
      expect(wrong.status, method).toBe(405);
      expect(wrong.headers.get('allow'), method).toBe('GET, POST');
      expect(await wrong.json(), method).toEqual({ status: 'Error', result: `method ${method} is not allowed on /graphql; use GET, POST` });
    }
    for (const path of ['/health', '/ready', '/relayer/health']) {
      const health = await t.rest('POST', path, {});
      expect(health.status, path).toBe(405);
      expect(health.headers.get('allow'), path).toBe('GET');
      expect(health.body, path).toEqual({ status: 'Error', result: 'method POST is not allowed; use GET' });
    }
  });

  it('415s a body that is not JSON', async ({ t }) => {
    const reply = await t.rest('POST', '/quotes', 'source=x', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(reply.status).toBe(415);
    expect(reply.body).toEqual({ status: 'Error', result: 'Content-Type must be application/json' });
  });

  it('400s malformed JSON', async ({ t }) => {
    const reply = await t.rest('POST', '/orders', '{"user_id": ');
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ status: 'Error', result: 'body must be valid JSON' });
  });

  it('413s a body over 64 KiB, also without Content-Length', async ({ t }) => {
    const big = JSON.stringify({ user_id: 'x'.repeat(70 * 1024) });
    const declared = await t.rest('POST', '/orders', big);
    expect(declared.status).toBe(413);
    const chunks = new TextEncoder().encode(big);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < chunks.length; i += 8192) controller.enqueue(chunks.slice(i, i + 8192));
        controller.close();
      },
    });
    const chunked = await t.app.fetch('http://test/orders', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(await chunked.json()).toMatchObject({ status: 'Error' });
  });

  it('applies the same body rules to GraphQL POSTs', async ({ t }) => {
    const post = (body: BodyInit, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
      t.app.fetch('http://test/graphql', { method: 'POST', headers, body, duplex: 'half' } as RequestInit);
    const big = JSON.stringify({ query: `{ ${'__typename '.repeat(7000)}}` });
    expect((await post(big)).status).toBe(413);
    const chunks = new TextEncoder().encode(big);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < chunks.length; i += 4096) controller.enqueue(chunks.slice(i, i + 4096));
        controller.close();
      },
    });
    const chunked = await post(stream);
    expect(chunked.status).toBe(413);
    expect(await chunked.json()).toEqual({ status: 'Error', result: 'body must be at most 65536 bytes' });
    // A form post is a cross-site request: CSRF prevention refuses it first; with the header, 415.
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    expect((await post('query=%7B__typename%7D', form)).status).toBe(403);
    expect((await post('query=%7B__typename%7D', { ...form, 'x-graphql-yoga-csrf': '1' })).status).toBe(415);
    expect((await post('{"query": ')).status).toBe(400);
    const ok = await post(JSON.stringify({ query: '{ __typename }' }));
    expect(await ok.json()).toEqual({ data: { __typename: 'Query' } });
  });

  it('answers deeply nested, duplicate-key and prototype-key bodies with a harmless 4xx', async ({ t }) => {
    const deep = await t.rest('POST', '/orders', `${'['.repeat(30_000)}${']'.repeat(30_000)}`);
    expect(deep.status).toBe(400);
    const nestedObject = await t.rest('POST', '/quotes', `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`);
    expect(nestedObject.status).toBe(400);
    // Duplicate keys: the last one wins, as in JSON.parse; it is then checked like any value.
    const duplicate = await t.rest(
      'POST',
      '/quotes',
      '{"source":{"asset":"bitcoin:btc","amount":"1"},"source":"x","destination":{"asset":"ethereum:wbtc"}}',
    );
    expect(duplicate.body).toEqual({ status: 'Error', result: 'source must be an object' });
    const proto = await t.rest(
      'POST',
      '/quotes',
      '{"__proto__":{"source":{"asset":"bitcoin:btc","amount":"100000"}},"constructor":{"prototype":{"x":1}},"destination":{"asset":"ethereum:wbtc"}}',
    );
    expect(proto.body).toEqual({ status: 'Error', result: 'source must be an object' });
    expect(({} as Record<string, unknown>).source).toBeUndefined();
  });

  it('answers a JSON body that is not an object with a 400', async ({ t }) => {
    for (const body of ['[]', '"text"', '42', 'null']) {
      const reply = await t.rest('POST', '/orders', body);
      expect(reply.status, body).toBe(400);
      expect(reply.body.result).toBe('body must be an object');
    }
  });

  it('tags every response with a request id, keeping a sane one the caller sent', async ({ t }) => {
    for (const path of ['/health', '/orders', '/nope', '/graphql?query=%7B__typename%7D']) {
      const reply = await t.rest('GET', path);
      expect(reply.headers.get('x-request-id'), path).toMatch(/^[0-9a-f-]{36}$/);
    }
    const given = await t.rest('GET', '/orders', undefined, { 'x-request-id': 'client-abc.123' });
    expect(given.headers.get('x-request-id')).toBe('client-abc.123');
    const insane = await t.rest('GET', '/orders', undefined, { 'x-request-id': 'no spaces <allowed>' });
    expect(insane.headers.get('x-request-id')).not.toBe('no spaces <allowed>');
  });

  it('serves GraphiQL from the package, without any CDN', async ({ t }) => {
    const response = await t.app.fetch('http://test/graphql', { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain('<div id="root">');
    expect(html).not.toMatch(/unpkg\.com|cdn\.jsdelivr|esm\.sh/);
  });
});
