import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, describe, expect } from 'vitest';
import { createHttpServer } from '../src/http/node-server.ts';
import { type TestApp, it } from './support/app.ts';
import { TEST_DB } from './support/database.ts';

const LIMITS = { headersTimeoutMs: 1_000, requestTimeoutMs: 1_500, keepAliveTimeoutMs: 500, maxRequestsPerSocket: 2 };

interface RawExchange {
  /** Everything the server wrote before it closed the connection (or the wait ended). */
  text: string;
  /** Milliseconds from connecting until the server closed the connection; undefined if it did not. */
  closedAfterMs: number | undefined;
}

/** Opens a TCP connection, writes the given chunks (each after `gapMs`), and records what comes back. */
function exchange(port: number, chunks: string[], waitMs = 4_000, gapMs = 0): Promise<RawExchange> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let closedAfterMs: number | undefined;
    socket.on('data', (d) => (text += d));
    socket.on('error', () => {});
    socket.on('close', () => {
      closedAfterMs = performance.now() - started;
      clearTimeout(timer);
      resolve({ text, closedAfterMs });
    });
    socket.on('connect', async () => {
      for (const chunk of chunks) {
        if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
        if (!socket.destroyed) socket.write(chunk);
      }
    });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closedAfterMs });
    }, waitMs);
  });
}

const envelopeOf = (text: string) => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { status: string; result: string };
const statusOf = (text: string) => Number(text.slice(9, 12));

/** The HTTP server's socket limits (src/http/node-server.ts), on a real port. Database-independent: PGlite only. */
describe.skipIf(TEST_DB !== 'pglite')('the socket layer', () => {
  let server: Server;
  let port: number;
  it.beforeAll(async ({ t }) => {
    server = createHttpServer(t.app, LIMITS);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('closes a connection that sends nothing, with a 408 envelope, once the headers time out', async () => {
    const { text, closedAfterMs } = await exchange(port, []);
    expect(statusOf(text)).toBe(408);
    expect(envelopeOf(text)).toEqual({ status: 'Error', result: 'the request was not received in time' });
    expect(closedAfterMs).toBeGreaterThanOrEqual(LIMITS.headersTimeoutMs - 50);
    expect(closedAfterMs).toBeLessThan(3_000);
  });

  it('closes a connection that stalls in its headers or its body', async () => {
    const [headers, body] = await Promise.all([
      exchange(port, ['GET /chains HTTP/1.1\r\nHost: localhost\r\n']),
      exchange(port, ['POST /quotes HTTP/1.1\r\nHost: localhost\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"a":']),
    ]);
    for (const stalled of [headers, body]) {
      expect(statusOf(stalled.text)).toBe(408);
      expect(stalled.closedAfterMs).toBeLessThan(3_500);
    }
  });

  it('answers a bad Host, a missing Host and an absolute-form target with a 400 envelope', async () => {
    const cases = {
      'GET /chains HTTP/1.1\r\nHost: bad host\r\n\r\n': 'the Host header must be a host name or IP address with an optional port',
      'GET /chains HTTP/1.1\r\nHost: [::1\r\n\r\n': 'the Host header must be a host name or IP address with an optional port',
      'GET /chains HTTP/1.1\r\n\r\n': 'the Host header is required',
      'GET http://elsewhere.example/chains HTTP/1.1\r\nHost: localhost\r\n\r\n':
        'the request target must be a path starting with / (origin-form)',
    };
    for (const [request, message] of Object.entries(cases)) {
      const { text } = await exchange(port, [request], 300);
      expect(statusOf(text), request).toBe(400);
      expect(envelopeOf(text)).toEqual({ status: 'Error', result: message });
      expect(text).not.toMatch(/at .*\.(js|ts):\d+/);
    }
  });

  it("uses the envelope for Node's own early answers: 431 and 400", async () => {
    const big = await exchange(port, [`GET /chains HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`], 1_000);
    expect(statusOf(big.text)).toBe(431);
    expect(envelopeOf(big.text)).toEqual({ status: 'Error', result: 'request headers are too large' });
    const garbage = await exchange(port, ['NOT HTTP AT ALL\r\n\r\n'], 1_000);
    expect(statusOf(garbage.text)).toBe(400);
    expect(envelopeOf(garbage.text)).toEqual({ status: 'Error', result: 'malformed HTTP request' });
  });

  it('refuses a body declared over the limit before it is sent (Expect: 100-continue), and closes', async () => {
    const ask = (length: number) =>
      `POST /graphql HTTP/1.1\r\nHost: localhost\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\nexpect: 100-continue\r\n\r\n`;
    const big = await exchange(port, [ask(10_000_000)], 2_000);
    expect(big.text).not.toContain('100 Continue');
    expect(statusOf(big.text)).toBe(413);
    expect(envelopeOf(big.text)).toEqual({ status: 'Error', result: 'body must be at most 65536 bytes' });
    expect(big.closedAfterMs).toBeLessThan(1_500);

    const body = '{"query":"{ __typename }"}';
    const small = await exchange(port, [ask(body.length), body], 1_000, 100);
    expect(small.text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);

    const odd = await exchange(port, ['GET /chains HTTP/1.1\r\nHost: localhost\r\nexpect: 200-ok\r\n\r\n'], 500);
    expect(statusOf(odd.text)).toBe(417);
    expect(envelopeOf(odd.text)).toEqual({ status: 'Error', result: 'the Expect header may only be 100-continue' });
  });

  it('bounds keep-alive: an idle connection is closed, and one socket serves a bounded number of requests', async () => {
    const idle = await exchange(port, ['GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n'], 3_000);
    expect(statusOf(idle.text)).toBe(200);
    expect(idle.closedAfterMs).toBeLessThan(2_500);

    const request = 'GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n';
    const reused = await exchange(port, [request, request], 2_000, 50);
    const answers = reused.text.split('HTTP/1.1 ').slice(1);
    expect(answers.map((a) => a.slice(0, 3))).toEqual(['200', '200']);
    expect(answers[1]!.toLowerCase()).toContain('connection: close');
    expect(reused.closedAfterMs).toBeDefined();
  });
});

describe.skipIf(TEST_DB !== 'pglite')('CORS', () => {
  const preflight = (t: TestApp, origin: string) =>
    t.app.fetch('http://test/graphql', {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
    });

  it('by default admits any origin, never with credentials', async ({ apps }) => {
    const t = await apps();
    for (const response of [
      await preflight(t, 'https://wallet.example'),
      await t.app.fetch('http://test/chains', { headers: { origin: 'https://wallet.example' } }),
    ]) {
      expect(response.headers.get('access-control-allow-origin')).toBe('https://wallet.example');
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    }
  });

  it('with CORS_ORIGINS admits only those origins, and still never with credentials', async ({ apps }) => {
    const t = await apps({ env: { CORS_ORIGINS: 'https://app.example, https://dash.example:8443' } });
    const allowed = await preflight(t, 'https://dash.example:8443');
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://dash.example:8443');
    expect(allowed.headers.get('access-control-allow-headers')).toContain('authorization');
    expect(allowed.headers.get('access-control-allow-credentials')).toBeNull();
    for (const response of [
      await preflight(t, 'https://evil.example'),
      await t.app.fetch('http://test/chains', { headers: { origin: 'https://evil.example' } }),
    ]) {
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    }
  });
});
