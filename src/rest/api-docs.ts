import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Plugin } from 'graphql-yoga';
import { PROJECT_ROOT } from '../paths.ts';
import { schema } from '../schema/index.ts';
import { buildOpenApi } from './openapi/document.ts';
import { routes } from './routes.ts';

/**
 * GET /openapi.json (the document src/rest/openapi/document.ts builds from the route table) and GET /docs, an API
 * reference rendered in the browser by Redoc. Redoc's script is served from its npm package: no CDN.
 */

export const OPENAPI_PATH = '/openapi.json';
export const DOCS_PATH = '/docs';
const REDOC_SCRIPT_PATH = '/docs/redoc.standalone.js';

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

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Order book REST API</title>
<link rel="icon" href="data:,">
<style>body { margin: 0; }</style>
</head>
<body>
<div id="redoc"></div>
<script src="${REDOC_SCRIPT_PATH}"></script>
<script>
  Redoc.init('${OPENAPI_PATH}', { hideDownloadButton: false, expandResponses: '200,201,202', jsonSampleExpandLevel: 3 }, document.getElementById('redoc'));
</script>
</body>
</html>
`;

let redocScript: string | undefined;
function redoc(): string {
  redocScript ??= readFileSync(createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js'), 'utf8');
  return redocScript;
}

export function apiDocsPlugin(): Plugin {
  const answers: Record<string, () => Response> = {
    [OPENAPI_PATH]: () => {
      openApiDocument();
      return new Response(document, { headers: { 'content-type': 'application/json; charset=utf-8' } });
    },
    [DOCS_PATH]: () =>
      new Response(DOCS_PAGE, {
        headers: {
          'content-type': 'text/html; charset=utf-8',
          // Everything from this server: Redoc's footer would fetch its logo from Redocly's CDN otherwise.
          'content-security-policy':
            "default-src 'self'; script-src 'self' 'unsafe-inline' blob:; worker-src 'self' blob:; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:",
        },
      }),
    [REDOC_SCRIPT_PATH]: () =>
      new Response(redoc(), { headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=86400' } }),
  };
  return {
    onRequest({ request, url, endResponse }) {
      const answer = answers[url.pathname];
      if (answer && (request.method === 'GET' || request.method === 'HEAD')) endResponse(answer());
    },
  };
}
