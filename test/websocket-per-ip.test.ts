import { describe, expect } from 'vitest';
import { WebSocket } from 'ws';
import { it, type TestApp } from './support/app.ts';
import { subscribeSse } from './support/sse.ts';
import { WsSession, eventually, listen, type Listening } from './support/ws.ts';

/** A test app on the file's database, on a real port with these settings; closed after the describe block. */
function serve(env: Record<string, string>) {
  const handle: { t: TestApp; server: Listening } = {} as never;
  it.beforeAll(async ({ apps }) => {
    handle.t = await apps({ env });
    handle.server = await listen(handle.t);
  });
  it.afterAll(async () => {
    await handle.server?.close();
    await handle.t?.close();
  });
  return handle;
}

/** The status an upgrade is answered with: 101 when accepted (the socket is closed again), or the refusal's. */
function upgradeStatus(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, 'graphql-transport-ws', { headers });
    socket.once('open', () => {
      socket.close(1000);
      resolve({ status: 101, body: '' });
    });
    socket.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => {
        body += String(chunk);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    socket.once('error', reject);
  });
}

/**
 * Open WebSockets are capped per client IP at the upgrade (WS_MAX_CONNECTIONS_PER_IP), the IP as the
 * rate limiter sees it; and connection_init spends the caller's rate budget.
 */
describe('WebSocket connections per IP', () => {
  const s = serve({ WS_MAX_CONNECTIONS_PER_IP: '3' });

  it('refuses a 4th socket from one IP with 429 while 3 stay open; closing one frees a slot', async () => {
    const sessions = await Promise.all([1, 2, 3].map(() => WsSession.open(s.server.wsUrl)));
    try {
      const refused = await upgradeStatus(s.server.wsUrl);
      expect(refused.status).toBe(429);
      expect(JSON.parse(refused.body)).toEqual({
        status: 'Error',
        result: 'an IP address may hold at most 3 open WebSocket connections; close one first',
      });
      expect(sessions.every((session) => session.isOpen)).toBe(true);
      expect((await sessions[0]!.run('q', '{ __typename }')).payload).toEqual({ data: { __typename: 'Query' } });

      await sessions[0]!.close();
      await eventually('a slot is free', () => s.t.runtime.limits.webSocketsPerIp.count('127.0.0.1') === 2);
      const fourth = await WsSession.open(s.server.wsUrl);
      sessions.push(fourth);
      expect(fourth.isOpen).toBe(true);
    } finally {
      await Promise.all(sessions.map((session) => session.close()));
    }
  });
});

describe('SSE subscriptions per IP', () => {
  const s = serve({ WS_MAX_CONNECTIONS_PER_IP: '3' });
  const query = 'subscription ($id: String!) { orderUpdated(orderId: $id) { status } }';
  const variables = { id: '0'.repeat(64) };

  it('refuses a 4th open SSE stream from one IP with TOO_MANY_SUBSCRIPTIONS; ending one frees a slot', async () => {
    const open = await Promise.all([1, 2, 3].map(() => subscribeSse(s.server.base, query, variables)));
    try {
      const refused = await fetch(`${s.server.base}/graphql`, {
        method: 'POST',
        headers: { accept: 'text/event-stream', 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      });
      const text = await refused.text();
      expect(text).toContain('an IP address may hold at most 3 open SSE subscriptions; close one first');
      expect(text).toContain('TOO_MANY_SUBSCRIPTIONS');
      // WebSockets are counted apart: the same IP still opens one.
      const socket = await WsSession.open(s.server.wsUrl);
      await socket.close();

      await open.shift()!.close();
      await eventually('a slot is free', () => s.t.runtime.limits.sseStreamsPerIp.count('127.0.0.1') === 2);
      open.push(await subscribeSse(s.server.base, query, variables));
    } finally {
      await Promise.all(open.map((subscription) => subscription.close()));
    }
  });
});

describe('WebSocket connections per forwarded IP behind a trusted proxy', () => {
  const s = serve({ WS_MAX_CONNECTIONS_PER_IP: '1', TRUST_PROXY: 'true' });

  it('counts each X-Forwarded-For client on its own', async () => {
    const first = await WsSession.open(s.server.wsUrl, { headers: { 'x-forwarded-for': '10.1.1.1' } });
    try {
      expect((await upgradeStatus(s.server.wsUrl, { 'x-forwarded-for': '10.1.1.1' })).status).toBe(429);
      expect((await upgradeStatus(s.server.wsUrl, { 'x-forwarded-for': '10.2.2.2' })).status).toBe(101);
    } finally {
      await first.close();
    }
  });
});

describe('connection_init under the per-IP rate limit', () => {
  const s = serve({ RATE_LIMIT_PER_IP: '2' });

  it('closes a socket whose connection_init is past the budget with 4429', async () => {
    const sessions = [await WsSession.open(s.server.wsUrl), await WsSession.open(s.server.wsUrl)];
    try {
      const error = await WsSession.open(s.server.wsUrl).then(
        (third) => {
          sessions.push(third);
          return undefined;
        },
        (err: Error) => err,
      );
      expect(error?.message).toMatch(
        /^connection_ack: the socket closed \(4429 rate limit of 2 requests per minute reached; retry in \d+ s\)$/,
      );
    } finally {
      await Promise.all(sessions.map((session) => session.close()));
    }
  });
});
