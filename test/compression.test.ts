import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect } from 'vitest';
import { createTestApp, it, type TestApp } from './support/app.ts';
import { makeOrder } from './support/fixtures.ts';

/** API answers over 1 KB are compressed for clients that ask, and only for them (COMPRESS_RESPONSES). */
describe('response compression', () => {
  const get = (t: TestApp, path: string, headers = {}) => Promise.resolve(t.app.fetch(`http://test${path}`, { headers }));

  it('sends a large answer as gzip or br, whichever the client prefers, with Vary', async ({ t }) => {
    const plain = await get(t, '/openapi.json');
    const text = await plain.text();
    expect(text.length).toBeGreaterThan(10_000);
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.headers.get('vary')).toMatch(/Accept-Encoding/i);

    const gzip = await get(t, '/openapi.json', { 'accept-encoding': 'gzip, deflate' });
    expect(gzip.headers.get('content-encoding')).toBe('gzip');
    expect(gzip.headers.get('vary')).toMatch(/Accept-Encoding/i);
    const gzipBytes = Buffer.from(await gzip.arrayBuffer());
    expect(gzipBytes.length).toBeLessThan(text.length / 3);
    expect(gunzipSync(gzipBytes).toString()).toBe(text);

    const br = await get(t, '/openapi.json', { 'accept-encoding': 'gzip;q=0.5, br' });
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(brotliDecompressSync(Buffer.from(await br.arrayBuffer())).toString()).toBe(text);

    const refused = await get(t, '/openapi.json', { 'accept-encoding': 'br;q=0, gzip;q=0' });
    expect(refused.headers.get('content-encoding')).toBeNull();
  });

  it('compresses GraphQL answers too, and leaves small ones as they are', async ({ t }) => {
    const query = encodeURIComponent('{ __schema { types { name description } } }');
    const big = await get(t, `/graphql?query=${query}`, { accept: 'application/json', 'accept-encoding': 'gzip' });
    expect(big.headers.get('content-encoding')).toBe('gzip');
    expect(JSON.parse(gunzipSync(Buffer.from(await big.arrayBuffer())).toString()).data.__schema.types.length).toBeGreaterThan(10);
    const small = await get(t, '/health', { 'accept-encoding': 'gzip, br' });
    expect(small.headers.get('content-encoding')).toBeNull();
    expect(await small.text()).toBe('Online');
  });

  it('compresses a streamed export as it streams', async ({ t }) => {
    for (let i = 0; i < 12; i++) await makeOrder(t, {}, 'export-compressed');
    const plain = await (await get(t, '/orders/user/export-compressed/export?format=ndjson')).text();
    expect(plain.split('\n').filter(Boolean)).toHaveLength(12);
    const gzip = await get(t, '/orders/user/export-compressed/export?format=ndjson', { 'accept-encoding': 'gzip' });
    expect(gzip.headers.get('content-encoding')).toBe('gzip');
    const lines = gunzipSync(Buffer.from(await gzip.arrayBuffer()))
      .toString()
      .split('\n')
      .filter(Boolean);
    expect(lines).toHaveLength(12);
    expect(new Set(lines.map((l) => JSON.parse(l).order_id))).toEqual(
      new Set(
        plain
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l).order_id),
      ),
    );
  });

  it('never compresses an event stream (a subscription would wait for the compressor)', async ({ t }) => {
    const order = await makeOrder(t, {}, 'sse-compressed');
    const query = encodeURIComponent(`subscription { orderUpdated(orderId: "${order.order_id}") { status } }`);
    const controller = new AbortController();
    const response = await t.app.fetch(`http://test/graphql?query=${query}`, {
      headers: { accept: 'text/event-stream', 'accept-encoding': 'gzip, br' },
      signal: controller.signal,
    });
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
    expect(response.headers.get('content-encoding') ?? 'none').toBe('none');
    controller.abort();
    await response.body?.cancel().catch(() => undefined);
  });

  it('sends everything as it is with COMPRESS_RESPONSES=false', async () => {
    const off = await createTestApp({ env: { COMPRESS_RESPONSES: 'false' } });
    try {
      const response = await get(off, '/openapi.json', { 'accept-encoding': 'gzip, br' });
      expect(response.headers.get('content-encoding')).toBeNull();
      expect(JSON.parse(await response.text()).openapi).toMatch(/^3\./);
    } finally {
      await off.close();
    }
  });
});
