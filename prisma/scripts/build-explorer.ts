import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { build } from 'esbuild';

/**
 * The explorer page (src/explorer/client) for browsers: one script and one style sheet with content hashes in
 * their names, so the server can let browsers keep them, and the HTML shell that loads them, which it serves at
 * every /explorer path (src/explorer/serve.ts).
 */
export async function buildExplorer(outdir: string): Promise<void> {
  const assets = join(outdir, 'assets');
  mkdirSync(assets, { recursive: true });
  const result = await build({
    entryPoints: { explorer: 'src/explorer/client/main.tsx' },
    outdir: assets,
    entryNames: '[name]-[hash]',
    bundle: true,
    minify: true,
    sourcemap: 'linked',
    platform: 'browser',
    format: 'esm',
    target: ['chrome109', 'firefox115', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: 'src/explorer/client/tsconfig.json',
    metafile: true,
    write: false,
    logLevel: 'warning',
  });
  for (const file of result.outputFiles) writeWhole(file.path, file.contents);
  const outputs = result.outputFiles.map((file) => basename(file.path));
  const script = outputs.find((name) => name.endsWith('.js'));
  const style = outputs.find((name) => name.endsWith('.css'));
  if (!script || !style) throw new Error(`the explorer build made no script or style sheet: ${outputs.join(', ')}`);
  writeWhole(join(assets, 'icon.svg'), ICON);
  writeWhole(join(outdir, 'index.html'), shell(`/explorer/assets/${script}`, `/explorer/assets/${style}`));
}

/**
 * Written beside, then renamed into place: a server reading the folder while it is built again (the tests build
 * it from more than one process) sees the old file or the new one, never half of one.
 */
function writeWhole(path: string, contents: string | Uint8Array): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, path);
}

/** Two linked rings (an order's two escrows); without an icon, browsers ask for /favicon.ico and log its 404. */
const ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><circle cx="12" cy="16" r="8" fill="none" stroke="#1d4ed8" stroke-width="3"/><circle cx="20" cy="16" r="8" fill="none" stroke="#15803d" stroke-width="3"/></svg>';

function shell(script: string, style: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Order book explorer</title>
<link rel="icon" href="/explorer/assets/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${style}">
<script type="module" src="${script}"></script>
</head>
<body>
<noscript>The explorer needs JavaScript. The same data is in the GraphQL API at /graphql and the REST API (/docs).</noscript>
<div id="app"></div>
</body>
</html>
`;
}
