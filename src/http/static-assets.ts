import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import type { Plugin } from 'graphql-yoga';
import { type Coding, pickCoding, varyOnAcceptEncoding } from './accept-encoding.ts';

/**
 * A folder of built files served at a path prefix (README, Operations: static pages). The build
 * (prisma/scripts/build.ts) writes a `.br` and a `.gz` beside each compressible file; a request gets the
 * one its Accept-Encoding prefers, with Vary. Every answer has a strong ETag (If-None-Match gives a 304).
 * Files under `assets/` carry a content hash in their name (Vite's convention, and ours for Redoc's script),
 * so they are cached for a year as immutable; everything else (the HTML shells) is `no-cache`: revalidated
 * on each visit, a 304 while unchanged.
 */

export const IMMUTABLE = 'public, max-age=31536000, immutable';
export const REVALIDATE = 'no-cache';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

interface AssetFile {
  path: string;
  type: string;
  etag: string;
  codings: Coding[];
  immutable: boolean;
}

export interface StaticAssetOptions {
  /** Extra headers on the HTML files (a Content-Security-Policy). */
  htmlHeaders?: Record<string, string>;
  /** Answer index.html for a path with no file and no extension (a single-page app's own routes). */
  spaFallback?: boolean;
}

export interface StaticAssets {
  /** The answer for a file of the folder (`index.html`, `assets/x.js`), or undefined when there is none. */
  serve(request: Request, file: string): Response | undefined;
}

/** The folder's files, listed once; undefined when the folder is not built. Contents are read per request. */
export function staticAssets(dir: string, options: StaticAssetOptions = {}): StaticAssets | undefined {
  if (!existsSync(dir)) return undefined;
  const files = new Map<string, AssetFile>();
  for (const path of listFiles(dir)) {
    if (path.endsWith('.br') || path.endsWith('.gz')) continue;
    const name = relative(dir, path).split(sep).join('/');
    const codings: Coding[] = (['br', 'gzip'] as const).filter((c) => existsSync(`${path}${c === 'br' ? '.br' : '.gz'}`));
    const etag = createHash('sha256').update(readFileSync(path)).digest('base64url').slice(0, 27);
    const type = CONTENT_TYPES[extname(path)] ?? 'application/octet-stream';
    files.set(name, { path, type, etag, codings, immutable: name.startsWith('assets/') });
  }
  return {
    serve(request, file) {
      if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
      const found = files.get(file) ?? (options.spaFallback && !extname(file) ? files.get('index.html') : undefined);
      if (!found) return undefined;
      const coding = pickCoding(request.headers.get('accept-encoding'), found.codings);
      // One ETag per representation: a cache must not answer a gzip request with the brotli bytes.
      const etag = `"${found.etag}${coding === 'identity' ? '' : `-${coding}`}"`;
      const headers = new Headers({
        'content-type': found.type,
        etag,
        'cache-control': found.immutable ? IMMUTABLE : REVALIDATE,
        'x-content-type-options': 'nosniff',
      });
      varyOnAcceptEncoding(headers);
      if (found.type.startsWith('text/html')) for (const [k, v] of Object.entries(options.htmlHeaders ?? {})) headers.set(k, v);
      if (matchesEtag(request.headers.get('if-none-match'), etag)) return new Response(null, { status: 304, headers });
      if (coding !== 'identity') headers.set('content-encoding', coding);
      const body = readFileSync(coding === 'identity' ? found.path : `${found.path}${coding === 'br' ? '.br' : '.gz'}`);
      headers.set('content-length', String(body.length));
      return new Response(request.method === 'HEAD' ? null : body, { headers });
    },
  };
}

/** Mounts a built folder at `prefix` (`/explorer` serves index.html, `/explorer/assets/...` the rest). */
export function staticAssetsPlugin(prefix: string, dir: string, options: StaticAssetOptions = {}): Plugin {
  const assets = staticAssets(dir, options);
  if (!assets) return {};
  return {
    onRequest({ request, url, endResponse }) {
      if (url.pathname !== prefix && !url.pathname.startsWith(`${prefix}/`)) return;
      let file: string;
      try {
        file = decodeURIComponent(url.pathname.slice(prefix.length + 1)) || 'index.html';
      } catch {
        return; // bad percent-encoding names no file: the usual 404
      }
      const response = assets.serve(request, file);
      if (response) endResponse(response);
    },
  };
}

function matchesEtag(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

function listFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? listFiles(path) : [path];
  });
}
