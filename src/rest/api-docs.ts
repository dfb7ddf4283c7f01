import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'graphql-yoga';
import { staticAssetsPlugin } from '../http/static-assets.ts';
import { PROJECT_ROOT } from '../paths.ts';
import { schema } from '../schema/index.ts';
import { DOCS_CSP, DOCS_PATH, docsPage, OPENAPI_PATH, redocScript } from './docs-page.ts';
import { buildOpenApi } from './openapi/document.ts';
import { routes } from './routes.ts';

/**
 * GET /openapi.json (the document src/rest/openapi/document.ts builds from the route table) and GET /docs, an API
 * reference rendered in the browser by Redoc. Redoc's script is served from its npm package: no CDN.
 */

export { DOCS_PATH, OPENAPI_PATH };
const REDOC_SCRIPT_PATH = '/docs/redoc.standalone.js';
/** The paths this plugin serves, to GET and HEAD. */
export const API_DOCS_PATHS: readonly string[] = [OPENAPI_PATH, DOCS_PATH, REDOC_SCRIPT_PATH];
const DOCS_DIR = fileURLToPath(new URL('dist/docs/', PROJECT_ROOT));

let document: string | undefined;
/** Built on first use: the schema and the routes do not change while the process runs. */
export function openApiDocument(): Record<string, unknown> {
  document ??= JSON.stringify(
    buildOpenApi(
      schema,
      routes,
      JSON.parse(readFileSync(new URL('package.json', PROJECT_ROOT), 'utf8')) as { version: string; license?: string },
    ),
  );
  return JSON.parse(document) as Record<string, unknown>;
}

let redocText: string | undefined;

/** The built pages (dist/docs: compressed, ETag, the script cached as immutable), or made here when not built. */
export function apiDocsPlugin(docsDir = DOCS_DIR): Plugin {
  const built = staticAssetsPlugin(DOCS_PATH, docsDir, { htmlHeaders: { 'content-security-policy': DOCS_CSP } });
  const answers: Record<string, () => Response> = {
    [OPENAPI_PATH]: () => {
      openApiDocument();
      return new Response(document, { headers: { 'content-type': 'application/json; charset=utf-8' } });
    },
    [DOCS_PATH]: () =>
      new Response(docsPage(REDOC_SCRIPT_PATH), {
        headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': DOCS_CSP },
      }),
    [REDOC_SCRIPT_PATH]: () => {
      redocText ??= redocScript();
      return new Response(redocText, {
        headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=86400' },
      });
    },
  };
  return {
    onRequest(payload) {
      const { request, url, endResponse } = payload;
      if (url.pathname !== OPENAPI_PATH && built.onRequest) {
        built.onRequest(payload);
        return;
      }
      const answer = answers[url.pathname];
      if (answer && (request.method === 'GET' || request.method === 'HEAD')) endResponse(answer());
    },
  };
}
