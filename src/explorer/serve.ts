import { fileURLToPath } from 'node:url';
import type { Plugin } from 'graphql-yoga';
import { PROJECT_ROOT } from '../paths.ts';
import { envelope } from '../http/envelope.ts';
import { type StaticAssets, staticAssets } from '../http/static-assets.ts';

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

const SHELL_HEADERS = { 'content-security-policy': EXPLORER_CSP, 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };

export function explorerPlugin(dir = fileURLToPath(new URL('dist/explorer', PROJECT_ROOT))): Plugin {
  // Listed on first use, not at start: a test may build the page after the app is made.
  let built: StaticAssets | undefined;
  const answer = (request: Request, pathname: string): Response | undefined => {
    const isPage = pathname === EXPLORER_PATH || pathname === `${EXPLORER_PATH}/` || DEEP_LINK.test(pathname);
    if (!isPage && !pathname.startsWith(ASSETS_PATH)) return undefined;
    built ??= staticAssets(dir, { htmlHeaders: SHELL_HEADERS });
    if (!built) return envelope(503, 'the explorer is not built: run npm run build');
    // Compressed at build time, ETag and caching by src/http/static-assets.ts: the shell is revalidated on
    // each visit (it names the current build's files), the hashed assets are immutable.
    const response = built.serve(request, isPage ? 'index.html' : pathname.slice(EXPLORER_PATH.length + 1));
    return response ?? envelope(404, `no such path: GET ${pathname}`);
  };
  return {
    onRequest({ request, url, endResponse }) {
      if (url.pathname !== EXPLORER_PATH && !url.pathname.startsWith(`${EXPLORER_PATH}/`)) return;
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        endResponse(envelope(405, `method ${request.method} is not allowed on ${url.pathname}; use GET`, { allow: 'GET' }));
        return;
      }
      const response = answer(request, url.pathname);
      if (response) endResponse(response);
    },
  };
}
