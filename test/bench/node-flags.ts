import { readFileSync } from 'node:fs';

/**
 * The Node flags `npm start` runs the service with (package.json's start script: a young generation of
 * 64 MiB semi-spaces, README Operations), so the bench, the profiles and cpu.ts measure the service as it
 * runs. The bench gives its other Node servers (the floor, PostGraphile) the same flags: equal footing.
 */
export const NODE_FLAGS: string[] = nodeFlags(new URL('../../', import.meta.url));

/** The flags of the start script of the checkout at `root` (cpu.ts measures other checkouts too). */
export function nodeFlags(root: URL | string): string[] {
  const pkg = JSON.parse(
    readFileSync(new URL('package.json', root instanceof URL ? root : `file://${root.replace(/\/?$/, '/')}`), 'utf8'),
  ) as {
    scripts: { start: string };
  };
  return pkg.scripts.start.split(/\s+/).filter((arg) => arg.startsWith('--'));
}

/**
 * The service's settings under load: as in production, with the rate limits out of the way of the load, and
 * no cap on requests per connection. autocannon keeps sending on a connection the server closed with
 * `Connection: close` (HTTP_MAX_REQUESTS_PER_SOCKET, 1,000 by default), and Node answers those 503: a run
 * fails as soon as one connection carries more requests than the cap.
 */
export const SERVICE_ENV = {
  NODE_ENV: 'production',
  LOG_LEVEL: 'warn',
  RATE_LIMIT_PER_IP: '1000000000',
  RATE_LIMIT_PER_KEY: '1000000000',
  HTTP_MAX_REQUESTS_PER_SOCKET: '1000000000',
} as const;

/** The environment of a server the bench starts: this process's, pointed at the bench database and `port`. */
export function serverEnv(databaseUrl: string, port: number, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', ...extra };
}
