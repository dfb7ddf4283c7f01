import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'graphql-yoga';
import { PROJECT_ROOT } from '../paths.ts';
import { envelope } from '../http/envelope.ts';

/**
 * The explorer page: the HTML shell at /explorer and its deep links (the page routes them itself), and the
 * files `npm run build` put in dist/explorer/assets (prisma/scripts/build-explorer.ts). The page reads the
 * public GraphQL API like any other client; nothing here touches the database.
 */

export const EXPLORER_PATH = '/explorer';
const ASSETS_PATH = `${EXPLORER_PATH}/assets/`;
const DEEP_LINK = /^\/explorer\/(?:orders|users|tx)\/[^/]+$/;

/** Everything from this server; the page has no inline script or style. */
export const EXPLORER_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** The build's files are all text. */
const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
};

interface Built {
  shell: string;
  assets: Map<string, { body: string; type: string }>;
}

/** Read once: the build does not change under a running server. Undefined until `npm run build` has run. */
function readBuilt(dir: string): Built | undefined {
  if (!existsSync(`${dir}/index.html`)) return undefined;
  const assets = new Map<string, { body: string; type: string }>();
  for (const name of readdirSync(`${dir}/assets`)) {
    const type = CONTENT_TYPES[extname(name)];
    if (type) assets.set(name, { body: readFileSync(`${dir}/assets/${name}`, 'utf8'), type });
  }
  return { shell: readFileSync(`${dir}/index.html`, 'utf8'), assets };
}

export function explorerPlugin(dir = fileURLToPath(new URL('dist/explorer', PROJECT_ROOT))): Plugin {
  let built: Built | undefined;
  const answer = (pathname: string): Response | undefined => {
    const isPage = pathname === EXPLORER_PATH || pathname === `${EXPLORER_PATH}/` || DEEP_LINK.test(pathname);
    if (!isPage && !pathname.startsWith(ASSETS_PATH)) return undefined;
    built ??= readBuilt(dir);
    if (!built) return envelope(503, 'the explorer is not built: run npm run build');
    if (isPage) {
      return new Response(built.shell, {
        headers: {
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy': EXPLORER_CSP,
          'x-content-type-options': 'nosniff',
          'referrer-policy': 'no-referrer',
          // The shell names the current build's files: always ask again.
          'cache-control': 'no-cache',
        },
      });
    }
    const name = pathname.slice(ASSETS_PATH.length);
    const asset = built.assets.get(name);
    if (!asset) return envelope(404, `no such path: GET ${pathname}`);
    // Scripts and styles carry their content's hash in their names (the build), so they never change.
    const hashed = /-[A-Z0-9]{8}\.(?:js|css)(?:\.map)?$/.test(name);
    return new Response(asset.body, {
      headers: {
        'content-type': asset.type,
        'x-content-type-options': 'nosniff',
        'cache-control': hashed ? 'public, max-age=31536000, immutable' : 'public, max-age=3600',
      },
    });
  };
  return {
    onRequest({ request, url, endResponse }) {
      if (url.pathname !== EXPLORER_PATH && !url.pathname.startsWith(`${EXPLORER_PATH}/`)) return;
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        endResponse(envelope(405, `method ${request.method} is not allowed on ${url.pathname}; use GET`, { allow: 'GET' }));
        return;
      }
      const response = answer(url.pathname);
      if (response) endResponse(response);
    },
  };
}
