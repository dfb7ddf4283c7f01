import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * /docs: Redoc's page and script, built into dist/docs by prisma/scripts/build.ts (or made here on first
 * request when not built). Redoc's script comes from its npm package: no CDN.
 */

export const OPENAPI_PATH = '/openapi.json';
export const DOCS_PATH = '/docs';

/** Everything from this server; data: for the footer logo below. */
export const DOCS_CSP =
  "default-src 'self'; script-src 'self' 'unsafe-inline' blob:; worker-src 'self' blob:; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:";

export function docsPage(scriptPath: string): string {
  return `<!doctype html>
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
<script src="${scriptPath}"></script>
<script>
  Redoc.init('${OPENAPI_PATH}', { hideDownloadButton: false, expandResponses: '200,201,202', jsonSampleExpandLevel: 3 }, document.getElementById('redoc'));
</script>
</body>
</html>
`;
}

/**
 * Redoc's footer always shows Redocly's logo from its CDN (no option turns it off), which our CSP refuses
 * with a console error. The script is served with that address replaced by a small inline SVG.
 */
const REDOC_LOGO_URL = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const INLINE_LOGO = `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"/>')}`;

export function redocScript(): string {
  const script = readFileSync(createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js'), 'utf8');
  if (!script.includes(REDOC_LOGO_URL)) return script;
  return script.replaceAll(REDOC_LOGO_URL, INLINE_LOGO);
}
