import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { compressStaticFolders } from '../prisma/scripts/static-pages.ts';
import { IMMUTABLE, REVALIDATE, staticAssets } from '../src/http/static-assets.ts';
import { createTestApp } from './support/app.ts';

/**
 * A built folder (as prisma/scripts/build.ts leaves the explorer's) served by src/http/static-assets.ts:
 * the encoding the browser accepts, ETag and 304, immutable caching for hashed files only.
 */
const out = mkdtempSync(join(tmpdir(), 'static-assets-'));
const dir = join(out, 'explorer');
const shell = `<!doctype html><title>x</title>${'<p>explorer</p>'.repeat(200)}`;
const script = `console.log(${JSON.stringify('bundle '.repeat(500))});`;
mkdirSync(join(dir, 'assets'), { recursive: true });
writeFileSync(join(dir, 'index.html'), shell);
writeFileSync(join(dir, 'assets', 'index-B3x9kQ2a.js'), script);
compressStaticFolders(out);
const assets = staticAssets(dir, { spaFallback: true, htmlHeaders: { 'x-frame-options': 'DENY' } })!;
afterAll(() => rmSync(out, { recursive: true, force: true }));

const request = (headers: Record<string, string> = {}, method = 'GET') => new Request('http://test/', { method, headers });

describe('static assets', () => {
  it('serves the compressed file the client accepts, br first, with Vary and a length', async () => {
    const br = assets.serve(request({ 'accept-encoding': 'gzip, deflate, br' }), 'index.html')!;
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(br.headers.get('vary')).toBe('Accept-Encoding');
    const gzip = assets.serve(request({ 'accept-encoding': 'gzip' }), 'index.html')!;
    expect(gzip.headers.get('content-encoding')).toBe('gzip');
    const bytes = Buffer.from(await gzip.arrayBuffer());
    expect(Number(gzip.headers.get('content-length'))).toBe(bytes.length);
    expect(gunzipSync(bytes).toString()).toBe(shell);
    const plain = assets.serve(request(), 'index.html')!;
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.text()).toBe(shell);
    expect(plain.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(plain.headers.get('x-frame-options')).toBe('DENY');
  });

  it('answers 304 to a matching If-None-Match, with one ETag per encoding', () => {
    const first = assets.serve(request({ 'accept-encoding': 'gzip' }), 'index.html')!;
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+-gzip"$/);
    expect(assets.serve(request(), 'index.html')!.headers.get('etag')).not.toBe(etag);
    const again = assets.serve(request({ 'accept-encoding': 'gzip', 'if-none-match': etag }), 'index.html')!;
    expect(again.status).toBe(304);
    expect(again.body).toBeNull();
    expect(again.headers.get('etag')).toBe(etag);
    expect(assets.serve(request({ 'accept-encoding': 'br', 'if-none-match': etag }), 'index.html')!.status).toBe(200);
  });

  it('caches hashed files for a year, revalidates the HTML shell, falls back to the shell for app routes', () => {
    expect(assets.serve(request(), 'assets/index-B3x9kQ2a.js')!.headers.get('cache-control')).toBe(IMMUTABLE);
    expect(assets.serve(request(), 'assets/index-B3x9kQ2a.js')!.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(assets.serve(request(), 'index.html')!.headers.get('cache-control')).toBe(REVALIDATE);
    expect(assets.serve(request(), 'orders/ord_123')!.headers.get('cache-control')).toBe(REVALIDATE);
    expect(assets.serve(request(), 'assets/missing.js')).toBeUndefined();
    expect(assets.serve(request({}, 'POST'), 'index.html')).toBeUndefined();
  });
});

describe('the built pages in the app (npm run build)', () => {
  it('GraphiQL and /docs come compressed, with ETag, the Redoc script immutable', async () => {
    const t = await createTestApp();
    try {
      const page = await t.app.fetch('http://test/graphql', { headers: { accept: 'text/html', 'accept-encoding': 'gzip, br' } });
      expect(page.headers.get('content-encoding')).toBe('br');
      expect(page.headers.get('cache-control')).toBe(REVALIDATE);
      const etag = page.headers.get('etag')!;
      await page.arrayBuffer();
      const revisit = await t.app.fetch('http://test/graphql', {
        headers: { accept: 'text/html', 'accept-encoding': 'gzip, br', 'if-none-match': etag },
      });
      expect(revisit.status).toBe(304);

      const docs = await t.app.fetch('http://test/docs', { headers: { 'accept-encoding': 'gzip' } });
      expect(docs.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
      const html = await docs.text();
      const src = /<script src="([^"]+)"/.exec(html)?.[1];
      expect(src).toMatch(/^\/docs\/assets\/redoc\.standalone\.[0-9a-f]{16}\.js$/);
      const redoc = await t.app.fetch(`http://test${src}`, { headers: { 'accept-encoding': 'gzip' } });
      expect(redoc.headers.get('content-encoding')).toBe('gzip');
      expect(redoc.headers.get('cache-control')).toBe(IMMUTABLE);
    } finally {
      await t.close();
    }
  });
});
