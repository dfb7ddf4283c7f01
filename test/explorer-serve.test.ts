import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect } from 'vitest';
import { buildExplorer } from '../prisma/scripts/build-explorer.ts';
import { EXPLORER_CSP } from '../src/explorer/serve.ts';
import { it } from './support/app.ts';

/** How the gateway serves the explorer's build: the shell at each page path, the hashed files, nothing else. */
describe('explorer files', () => {
  const dir = fileURLToPath(new URL('../dist/explorer', import.meta.url));
  let script = '';
  let style = '';

  beforeAll(async () => {
    await buildExplorer(dir);
    const shell = readFileSync(`${dir}/index.html`, 'utf8');
    script = /src="(\/explorer\/assets\/explorer-[A-Z0-9]{8}\.js)"/.exec(shell)![1]!;
    style = /href="(\/explorer\/assets\/explorer-[A-Z0-9]{8}\.css)"/.exec(shell)![1]!;
  }, 60_000);

  it('answers every page path with the same shell, under a policy that allows only this server', async ({ t }) => {
    const paths = ['/explorer', '/explorer/', `/explorer/orders/${'a'.repeat(64)}`, '/explorer/users/some%2Fuser', '/explorer/tx/0xabc'];
    const bodies = new Set<string>();
    for (const path of paths) {
      const response = await t.app.fetch(`http://test${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('content-security-policy')).toBe(EXPLORER_CSP);
      expect(response.headers.get('cache-control')).toBe('no-cache');
      bodies.add(await response.text());
    }
    expect(bodies.size).toBe(1);
    const [shell] = bodies;
    expect(shell).toContain('<div id="app"></div>');
    // Nothing in the shell points off this server, and it has no inline script the policy would refuse.
    expect(shell).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
    expect(shell).not.toMatch(/<script>/);
  });

  it('serves the hashed script and style sheet with their types, to be kept for good', async ({ t }) => {
    for (const [path, type] of [
      [script, 'text/javascript; charset=utf-8'],
      [style, 'text/css; charset=utf-8'],
    ] as const) {
      const response = await t.app.fetch(`http://test${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(type);
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect((await response.text()).length).toBeGreaterThan(1000);
    }
    const icon = await t.app.fetch('http://test/explorer/assets/icon.svg');
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
  });

  it('answers unknown files and paths with 404 and writes with 405, in the envelope', async ({ t }) => {
    for (const path of ['/explorer/assets/missing-AAAAAAAA.js', '/explorer/orders', '/explorer/orders/a/b', '/explorer/other/x']) {
      const response = await t.app.fetch(`http://test${path}`);
      expect(response.status, path).toBe(404);
      expect((await response.json()).status).toBe('Error');
    }
    const post = await t.app.fetch('http://test/explorer', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
    expect(await post.json()).toEqual({ status: 'Error', result: 'method POST is not allowed on /explorer; use GET' });
  });
});
