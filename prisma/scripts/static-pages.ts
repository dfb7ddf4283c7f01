import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { graphiqlPage } from '../../src/http/graphiql.ts';
import { DOCS_PATH, docsPage, redocScript } from '../../src/rest/docs-page.ts';

/**
 * The pages the server sends as files (src/http/static-assets.ts): GraphiQL's, and /docs with Redoc's
 * script under a hashed name (cached as immutable). Then every text file of the static folders, the
 * explorer's included when it is built, gets a .br and a .gz beside it, made once here instead of per request.
 */
export const STATIC_FOLDERS = ['graphiql', 'docs', 'explorer'];

export function writeStaticPages(outdir: string): void {
  mkdirSync(join(outdir, 'graphiql'), { recursive: true });
  writeFileSync(join(outdir, 'graphiql', 'index.html'), graphiqlPage());
  const script = redocScript();
  const scriptName = `redoc.standalone.${createHash('sha256').update(script).digest('hex').slice(0, 16)}.js`;
  mkdirSync(join(outdir, 'docs', 'assets'), { recursive: true });
  writeFileSync(join(outdir, 'docs', 'assets', scriptName), script);
  writeFileSync(join(outdir, 'docs', 'index.html'), docsPage(`${DOCS_PATH}/assets/${scriptName}`));
}

const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.svg', '.txt', '.map']);
/** Smaller files gain less than their headers cost. */
const MIN_BYTES = 1024;

export function compressStaticFolders(outdir: string): void {
  for (const folder of STATIC_FOLDERS) {
    const dir = join(outdir, folder);
    if (existsSync(dir)) compressFolder(dir);
  }
}

function compressFolder(dir: string): void {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) {
      compressFolder(path);
      continue;
    }
    if (!COMPRESSIBLE.has(extname(path))) continue;
    const content = readFileSync(path);
    if (content.length < MIN_BYTES) continue;
    writeFileSync(`${path}.gz`, gzipSync(content, { level: 9 }));
    // Quality 11 on GraphiQL's page costs a long build for a few percent less than 9.
    const quality = content.length > 2_000_000 ? 9 : 11;
    writeFileSync(
      `${path}.br`,
      brotliCompressSync(content, {
        params: { [constants.BROTLI_PARAM_QUALITY]: quality, [constants.BROTLI_PARAM_SIZE_HINT]: content.length },
      }),
    );
  }
}
