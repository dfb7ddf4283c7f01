import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { expect } from 'vitest';
import { it, type Json, type TestApp } from './app.ts';

/** A real HTTP receiver on loopback; `answer` decides each reply. */
interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}
export class Receiver {
  received: Received[] = [];
  answer: (n: number, res: ServerResponse, got: Received) => void = (_n, res) => res.end('ok');
  private server!: Server;
  url = '';
  async start() {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const got = { headers: req.headers, body, at: Date.now() };
        this.received.push(got);
        this.answer(this.received.length, res, got);
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', () => r()));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}/hook`;
    return this;
  }
  close() {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(r));
  }
  bodies(): Json[] {
    return this.received.map((r) => JSON.parse(r.body));
  }
}

export const FAST = {
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_RETRY_BASE_MS: '20',
  WEBHOOK_RETRY_MAX_MS: '40',
  WEBHOOK_TIMEOUT_MS: '300',
};
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Ticks the worker until `done` holds (deliveries wait for their backoff, in ms). */
export async function until(t: TestApp, done: () => boolean, ms = 10_000) {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error('timed out waiting for deliveries');
    await t.runtime.webhooks.tick();
    await sleep(15);
  }
}

export async function register(t: TestApp, url: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const reply = await t.rest(
    'POST',
    '/webhooks',
    { url, events: ['order.status_changed', 'claim.confirmed', 'claim.failed'], ...extra },
    headers,
  );
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.result as { id: string; secret: string };
}

/**
 * After each test of a webhook file: the test's receiver closed, the file app's endpoints deleted (their
 * deliveries go with them; events already fanned out stay behind).
 */
export function cleanAfterEach(receiver: () => Receiver | undefined) {
  it.afterEach(async ({ t }) => {
    await receiver()?.close();
    for (const endpoint of (await t.rest('GET', '/webhooks')).body.result) await t.rest('DELETE', `/webhooks/${endpoint.id}`);
    await t.runtime.webhooks.tick();
  });
}
