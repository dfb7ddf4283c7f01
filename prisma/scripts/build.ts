import { rmSync } from 'node:fs';
import { build } from 'esbuild';
import { buildExplorer } from './build-explorer.ts';
import { compressStaticFolders, writeStaticPages } from './static-pages.ts';

/**
 * npm run build: the server as one ES module, dist/server.js, which `npm start` runs with plain Node.
 * One file loads faster than the same code as thousands of modules: no module resolution per import
 * (`npm run bench:startup` measures start-up). Packages that read files beside their own code at run time stay outside the bundle.
 * Then the explorer page, dist/explorer/ (build-explorer.ts), and the static pages, compressed
 * (prisma/scripts/static-pages.ts).
 */
const outdir = process.argv[2] ?? 'dist';
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { server: 'src/server.ts' },
  outdir,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  external: [
    // Its WebAssembly and data files are found relative to its own module.
    '@electric-sql/pglite',
    // pg's optional native binding, which we do not use.
    'pg-native',
    // Tracing: loaded from node_modules only when OTEL_EXPORTER_OTLP_ENDPOINT is set (src/tracing.ts).
    '@opentelemetry/*',
    '@prisma/instrumentation',
  ],
  // Bundled CommonJS packages call require() for Node's built-ins.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  logLevel: 'warning',
});
await buildExplorer(`${outdir}/explorer`);
writeStaticPages(outdir);
compressStaticFolders(outdir);
console.log(`built ${outdir}/server.js, ${outdir}/explorer/ and the static pages`);
