import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import type { Json } from '../support/app.ts';

/**
 * `npm run probe`: replays adversarial requests against a running server and prints, per attack, whether
 * the service held. Run it against a production-like instance (README, Hardening):
 *
 *   PROBE_URL=http://127.0.0.1:4000 PROBE_API_KEY=<one of API_KEYS> PROBE_WATCHER_KEY=<WATCHER_KEY> npm run probe
 *
 * PROBE_TRUST_PROXY=true when the server runs with TRUST_PROXY=true (the X-Forwarded-For attacks need it);
 * PROBE_SLOW=true adds the attacks that wait out the server's request timeout; PROBE_METRICS=true the one on
 * /metrics, when it is served on the API's port. It writes a few quotes,
 * orders, escrow events and webhook endpoints (user ids start with `probe-`); exit code 1 if any attack got through.
 */

const BASE = new URL(process.env.PROBE_URL ?? 'http://127.0.0.1:4000');
const API_KEY = process.env.PROBE_API_KEY ?? '';
const WATCHER_KEY = process.env.PROBE_WATCHER_KEY ?? '';
const TRUST_PROXY = process.env.PROBE_TRUST_PROXY === 'true';
const SLOW = process.env.PROBE_SLOW === 'true';
/** /metrics is served on the API's port (neither METRICS=off nor METRICS_PORT). */
const METRICS_ON_API_PORT = process.env.PROBE_METRICS === 'true';
const J = { 'content-type': 'application/json' };
const KEY: Record<string, string> = API_KEY ? { authorization: `Bearer ${API_KEY}` } : {};

interface Attack {
  kind: 'transport' | 'resource' | 'identity' | 'time' | 'money' | 'ssrf';
  name: string;
  /** Where the rule that holds lives when a probe of this branch had to add it (else it held as found). */
  fixedIn?: string;
  /** Throws (an `expect` failure) when the attack got through. */
  run(): Promise<void>;
  skip?: string;
}

function expect(ok: boolean, what: string): void {
  if (!ok) throw new Error(what);
}

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(new URL(path, BASE), {
    method,
    headers: { ...(body === undefined ? {} : J), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let json: Json | undefined;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: response.status, headers: response.headers, text, json };
}

const gql = (query: string, variables?: Json) => call('POST', '/graphql', { query, variables }, KEY);

/** Raw bytes over TCP: what the server wrote and whether it closed within `waitMs`. */
function raw(chunks: (string | Buffer)[], waitMs = 1_500, gapMs = 0): Promise<{ text: string; closedMs?: number }> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = connect(Number(BASE.port || 80), BASE.hostname);
    let text = '';
    socket.on('data', (d) => (text += d.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closedMs: performance.now() - started });
    });
    socket.on('connect', async () => {
      for (const chunk of chunks) {
        if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
        if (!socket.destroyed) socket.write(chunk);
      }
    });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text });
    }, waitMs);
  });
}
const statusOf = (text: string) => Number(text.slice(9, 12));
const host = `Host: ${BASE.host}\r\n`;

/** An order body on quote `q` (BTC to an EVM chain) whose destination leg takes `destination`'s overrides. */
function orderOnQuote(q: Json, destination: { recipient?: string; amount?: string }) {
  return {
    user_id: 'probe-money',
    quote_id: q.quote_id,
    commitment_hash: randomBytes(32).toString('hex'),
    source: { asset: q.source.asset, recipient: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', amount: q.source.amount },
    destination: { asset: q.destination.asset, recipient: `0x${'5a'.repeat(20)}`, amount: q.destination.amount, ...destination },
  };
}

async function quote(amount = '10000000', source = 'bitcoin:btc', destination = 'ethereum:wbtc') {
  return call('POST', '/quotes', { source: { asset: source, amount }, destination: { asset: destination } }, KEY);
}

async function order(userId: string) {
  const q = (await quote()).json!.result;
  const secret = randomBytes(32);
  const body = {
    user_id: userId,
    quote_id: q.quote_id,
    commitment_hash: createHash('sha256').update(secret).digest('hex'),
    source: { asset: q.source.asset, recipient: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', amount: q.source.amount },
    destination: { asset: q.destination.asset, recipient: `0x${'5a'.repeat(20)}`, amount: q.destination.amount },
  };
  const created = await call('POST', '/orders', body, KEY);
  expect(created.status === 201, `order: ${created.status} ${created.text}`);
  return { body, order: created.json!.result, secret: secret.toString('hex') };
}

const event = (kind: string, block: number, timestamp: string, extra: Json = {}) => ({
  kind,
  tx_hash: `0x${randomBytes(32).toString('hex')}`,
  block_number: block,
  timestamp,
  ...extra,
});
const postEvent = (swapId: string, body: unknown) =>
  call('POST', `/intents/${swapId}/events`, body, { authorization: `Bearer ${WATCHER_KEY}` });

const routes = [
  '/health',
  '/ready',
  '/relayer/health',
  '/assets',
  '/chains',
  '/orders',
  `/orders/${'0'.repeat(64)}`,
  '/orders/user/probe-a',
  '/orders/export',
  '/orders/user/probe-a/export',
  '/stats',
  '/stats/series?interval=day&last=7',
  `/relayer/claims/${'0'.repeat(64)}`,
  '/quotes/q_none',
  '/webhooks',
  '/openapi.json',
  '/docs',
  '/explorer',
  '/graphql',
  '/no-such-path',
];

const attacks: Attack[] = [
  // Transports
  {
    kind: 'transport',
    name: 'Expect: 100-continue with a declared 10 MB body: 413 before the body, no 100, connection closed',
    fixedIn: 'src/http/node-server.ts (test/http-socket.test.ts)',
    async run() {
      const { text, closedMs } = await raw([
        `POST /graphql HTTP/1.1\r\n${host}content-type: application/json\r\ncontent-length: 10000000\r\nexpect: 100-continue\r\n\r\n`,
      ]);
      expect(!text.includes('100 Continue') && statusOf(text) === 413 && closedMs !== undefined, text.slice(0, 120));
    },
  },
  {
    kind: 'transport',
    name: 'Expect: 200-ok: a 417 in the envelope',
    fixedIn: 'src/http/node-server.ts (test/http-socket.test.ts)',
    async run() {
      const { text } = await raw([`GET /chains HTTP/1.1\r\n${host}expect: 200-ok\r\n\r\n`], 500);
      expect(statusOf(text) === 417 && text.includes('"status":"Error"'), text.slice(0, 120));
    },
  },
  {
    kind: 'transport',
    name: 'absolute-form target, HTTP/1.0 without Host, NUL in a header: 400 envelopes',
    async run() {
      for (const request of [
        `GET http://elsewhere/chains HTTP/1.1\r\n${host}\r\n`,
        'GET /chains HTTP/1.0\r\n\r\n',
        `GET /chains HTTP/1.1\r\n${host}authorization: Bearer a\0b\r\n\r\n`,
      ]) {
        const { text } = await raw([request], 500);
        expect(statusOf(text) === 400 && text.includes('"status":"Error"'), `${JSON.stringify(request)} -> ${text.slice(0, 80)}`);
      }
    },
  },
  {
    kind: 'transport',
    name: 'request smuggling shapes (Content-Length with Transfer-Encoding, two lengths): 400, never a second request',
    async run() {
      for (const request of [
        `POST /graphql HTTP/1.1\r\n${host}content-length: 4\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\nGET /chains HTTP/1.1\r\n${host}\r\n`,
        `POST /graphql HTTP/1.1\r\n${host}content-length: 4\r\ncontent-length: 40\r\n\r\nabcd`,
      ]) {
        const { text } = await raw([request], 800);
        expect(statusOf(text) === 400 && text.split('HTTP/1.1 ').length === 2, text.slice(0, 120));
      }
    },
  },
  {
    kind: 'transport',
    name: '3,000 small headers (431) and 1,500 tiny ones (answered, no 5xx)',
    async run() {
      const many = (n: number) => `GET /chains HTTP/1.1\r\n${host}${Array.from({ length: n }, (_, i) => `a${i}: b\r\n`).join('')}\r\n`;
      expect(statusOf((await raw([many(3000)])).text) === 431, '3,000 headers not refused');
      expect(statusOf((await raw([many(1500)])).text) < 500, '1,500 headers: 5xx');
    },
  },
  {
    kind: 'transport',
    name: 'HEAD and OPTIONS on every route: no 5xx, HEAD has no body',
    async run() {
      for (const path of routes) {
        for (const method of ['HEAD', 'OPTIONS']) {
          const reply = await call(method, path);
          expect(reply.status < 500 && (method !== 'HEAD' || reply.text === ''), `${method} ${path}: ${reply.status}`);
        }
      }
    },
  },
  {
    kind: 'resource',
    name: 'HEAD /orders/export costs one page, not the whole export',
    fixedIn: 'src/rest/plugin.ts (test/export.test.ts)',
    async run() {
      const time = async (method: string) => {
        const started = performance.now();
        await call(method, '/orders/export?format=ndjson');
        return performance.now() - started;
      };
      const get = await time('GET');
      const head = await time('HEAD');
      // Only telling when the export is more than a few pages.
      expect(head < 200 || head < get / 3, `HEAD ${Math.round(head)} ms vs GET ${Math.round(get)} ms`);
    },
  },
  {
    kind: 'transport',
    name: 'slowloris on the body (1 byte a second): closed at the request timeout',
    skip: SLOW ? undefined : 'PROBE_SLOW=true',
    async run() {
      const head = `POST /graphql HTTP/1.1\r\n${host}content-type: application/json\r\ncontent-length: 1000\r\n\r\n`;
      const { text, closedMs } = await raw([head, ...Array.from({ length: 60 }, () => '{')], 45_000, 1_000);
      expect(closedMs !== undefined && statusOf(text) === 408, `open after 45 s: ${text.slice(0, 60)}`);
    },
  },
  // Resources
  {
    kind: 'resource',
    name: 'one IP opens WS_MAX_CONNECTIONS_PER_IP + 10 SSE subscriptions (PROBE_STREAMS, default 60): the extra are refused',
    fixedIn: 'src/http/subscription-limits.ts (test/websocket-per-ip.test.ts)',
    async run() {
      const body = JSON.stringify({ query: `subscription { orderUpdated(orderId: "${'0'.repeat(64)}") { status } }` });
      const opened: { destroy(): void }[] = [];
      const answers = await Promise.all(
        Array.from(
          { length: Number(process.env.PROBE_STREAMS ?? 60) },
          () =>
            new Promise<string>((resolve) => {
              const req = httpRequest(new URL('/graphql', BASE), {
                method: 'POST',
                headers: { ...J, accept: 'text/event-stream', 'content-length': Buffer.byteLength(body) },
              });
              let text = '';
              // A refusal is one error result, then the stream ends; an accepted stream stays open.
              req.on('response', (res) => res.on('data', (chunk: Buffer) => (text += chunk)).on('end', () => resolve(text)));
              req.on('error', (error) => resolve(error.message));
              setTimeout(() => resolve(text), 2_000);
              req.end(body);
              opened.push(req);
            }),
        ),
      );
      for (const req of opened) req.destroy();
      const refused = answers.filter((chunk) => chunk.includes('TOO_MANY_SUBSCRIPTIONS')).length;
      expect(refused > 0, `all ${answers.length} streams open`);
    },
  },
  {
    kind: 'resource',
    name: 'GraphQL field merging: 990 same-name fields, two 490-field fragments on one object',
    async run() {
      for (const query of [
        `{${' __typename'.repeat(990)} }`,
        `{ assets { ...A ...B } } fragment A on Asset {${' id'.repeat(480)} } fragment B on Asset {${' id'.repeat(480)} }`,
        `{${' assets { id }'.repeat(240)} }`,
      ]) {
        const started = performance.now();
        const reply = await gql(query);
        expect(
          reply.status < 500 && performance.now() - started < 1_000,
          `${reply.status} in ${Math.round(performance.now() - started)} ms`,
        );
      }
    },
  },
  {
    kind: 'resource',
    name: 'JSON nested 30,000 deep, as a REST body and as a GraphQL variable: 400 / BAD_REQUEST',
    async run() {
      const deep = `${'['.repeat(30_000)}${']'.repeat(30_000)}`;
      expect((await call('POST', '/quotes', deep, KEY)).status === 400, 'REST');
      const reply = await call(
        'POST',
        '/graphql',
        `{"query":"query ($v: [String!]) { orders(filter: { ids: $v }) { total } }","variables":{"v":${deep}}}`,
      );
      expect(reply.json?.errors?.[0]?.extensions?.code === 'BAD_REQUEST', reply.text.slice(0, 100));
    },
  },
  {
    kind: 'resource',
    name: 'pages: negative, zero, huge and fractional page/limit/first/last: 400 or BAD_REQUEST, never INTERNAL',
    fixedIn: 'src/http/error-masking.ts (test/orders-read.test.ts)',
    async run() {
      for (const q of ['page=-1', 'page=0', 'page=1000000000', 'limit=101', 'limit=1e2', 'page=1.5', 'limit=%00']) {
        expect((await call('GET', `/orders?${q}`)).status === 400, q);
      }
      for (const args of ['first: -5', 'last: -1', 'first: 101', 'first: 2147483647']) {
        const reply = await gql(`{ ordersConnection(${args}) { edges { cursor } } }`);
        const code = reply.json?.errors?.[0]?.extensions?.code;
        expect(code === 'BAD_REQUEST' || code === 'GRAPHQL_VALIDATION_FAILED', `${args}: ${code}`);
      }
    },
  },
  {
    kind: 'resource',
    name: 'cursors that are not ours (garbage, bad dates, a NUL in the id): BAD_REQUEST',
    fixedIn: 'src/schema/order.ts (test/orders-read.test.ts)',
    async run() {
      for (const chunk of ['abc', 'T:["D:abc","S:x"]', 'T:[]', 'T:["D:1","S:\\u0000"]', `T:["D:1","S:${'a'.repeat(5000)}"]`]) {
        const after = chunk === 'abc' ? chunk : Buffer.from(`GPC:${chunk}`).toString('base64');
        const reply = await gql('query ($a: String) { ordersConnection(first: 2, after: $a) { edges { cursor } } }', { a: after });
        expect(reply.json?.errors?.[0]?.extensions?.code === 'BAD_REQUEST', `${chunk.slice(0, 30)}: ${reply.text.slice(0, 100)}`);
      }
    },
  },
  {
    kind: 'resource',
    name: 'made-up GraphQL operation names: /metrics keeps at most a bounded set of them (the rest count as other)',
    fixedIn: 'src/http/metrics.ts (test/metrics.test.ts)',
    skip: METRICS_ON_API_PORT ? undefined : 'PROBE_METRICS=true (/metrics on the API port)',
    async run() {
      const tag = randomBytes(4).toString('hex');
      for (let i = 0; i < 150; i++) await gql(`query Probe${tag}_${i} { __typename }`);
      const text = (await call('GET', '/metrics')).text;
      const named = new Set(text.match(new RegExp(`operationName="Probe${tag}_\\d+"`, 'g')) ?? []);
      expect(named.size <= 100, `${named.size} made-up names kept as labels`);
    },
  },
  {
    kind: 'resource',
    name: 'a connection read for its cursors alone, and mixed directions: data, or BAD_REQUEST, never INTERNAL',
    fixedIn: 'src/schema/order.ts, src/http/error-masking.ts (test/orders-read.test.ts)',
    async run() {
      const bare = await gql('{ ordersConnection(first: 2) { edges { cursor } pageInfo { hasNextPage endCursor } } }');
      expect(bare.json?.errors === undefined, `cursors alone: ${bare.text.slice(0, 120)}`);
      const cursor = bare.json?.data?.ordersConnection?.pageInfo?.endCursor;
      if (cursor) {
        const mixed = await gql('query ($c: String) { ordersConnection(first: 1, before: $c) { edges { cursor } } }', { c: cursor });
        expect(mixed.json?.errors?.[0]?.extensions?.code === 'BAD_REQUEST', `first with before: ${mixed.text.slice(0, 120)}`);
      }
    },
  },
  {
    kind: 'transport',
    name: 'wrong methods on /graphql, the API document, /docs: 405 in the envelope with Allow',
    fixedIn: 'src/rest/plugin.ts (test/http-request-handling.test.ts)',
    async run() {
      for (const [method, path] of [
        ['PUT', '/graphql'],
        ['DELETE', '/graphql'],
        ['POST', '/openapi.json'],
        ['POST', '/docs'],
      ] as const) {
        const reply = await call(method, path);
        expect(reply.status === 405 && reply.headers.has('allow') && reply.json?.status === 'Error', `${method} ${path}: ${reply.status}`);
      }
    },
  },
  {
    kind: 'resource',
    name: 'X-Forwarded-For of 1,000 hops: answered as fast as a short one (longer: 431, headers too large)',
    async run() {
      const long = (n: number) => Array.from({ length: n }, () => '198.51.100.1').join(', ');
      const started = performance.now();
      const reply = await call('GET', '/chains', undefined, { 'x-forwarded-for': long(1000) });
      expect(reply.status === 200 && performance.now() - started < 500, `${reply.status}`);
      expect((await call('GET', '/chains', undefined, { 'x-forwarded-for': long(2000) })).status === 431, 'a 28 KB header admitted');
    },
  },
  // Identity
  {
    kind: 'identity',
    name: 'X-Forwarded-For first hop made up per request: still counted as the proxy-appended last hop',
    fixedIn: 'src/http/rate-limit.ts (test/rate-limit.test.ts)',
    skip: TRUST_PROXY ? undefined : 'PROBE_TRUST_PROXY=true',
    async run() {
      const me = `203.0.113.${1 + (Date.now() % 250)}`;
      const remaining = [];
      for (let i = 0; i < 3; i++) {
        const spoof = `198.51.100.${i}, ${me}`;
        remaining.push(Number((await call('GET', '/chains', undefined, { 'x-forwarded-for': spoof })).headers.get('ratelimit-remaining')));
      }
      expect(remaining[0]! > remaining[1]! && remaining[1]! > remaining[2]!, `remaining ${remaining.join(', ')}`);
    },
  },
  {
    kind: 'identity',
    name: 'webhook users filter with zero-width, bidi override, C1 control, lone surrogate, `..`: 400; NFD stored as NFC',
    fixedIn: 'src/webhooks/endpoints.ts (test/webhook-inputs.test.ts)',
    async run() {
      for (const user of ['ali\u200bce', '\u202ealice', 'a\u0085b', 'a\ud800', '..']) {
        const reply = await call('POST', '/webhooks', { url: 'https://example.com/h', events: ['claim.failed'], users: [user] }, KEY);
        expect(reply.status === 400, `${JSON.stringify(user)}: ${reply.status}`);
      }
      const nfd = await call(
        'POST',
        '/webhooks',
        { url: 'https://example.com/h', events: ['claim.failed'], users: ['probe-e\u0301'] },
        KEY,
      );
      expect(nfd.json?.result?.users?.[0] === 'probe-\u00e9', JSON.stringify(nfd.json?.result?.users));
      await call('DELETE', `/webhooks/${nfd.json!.result.id}`, undefined, KEY);
    },
  },
  {
    kind: 'identity',
    name: 'API keys: non-ASCII, 4,000 characters: 401 (never 500); user paths `%2E%2E` (URL-normalised to /orders/), `a%2Fb`, `%00`: no 5xx',
    async run() {
      for (const token of ['prob\u00e9', 'x'.repeat(4000)]) {
        const reply = await call('POST', '/quotes', '{}', { ...J, authorization: `Bearer ${token}` });
        // Without API_KEYS on the server a bearer token is not looked at: then only "never 500" applies.
        expect(API_KEY ? reply.status === 401 : reply.status < 500, `${token.slice(0, 10)}: ${reply.status}`);
      }
      for (const path of ['/orders/user/%2E%2E', '/orders/user/%2E', '/orders/user/a%2Fb', '/orders/user/%00']) {
        const reply = await call('GET', path);
        // No user id can be `.` or `..` (the user id rule), so a dot segment never names one.
        expect(reply.status < 500, `${path}: ${reply.status}`);
      }
    },
  },
  {
    kind: 'identity',
    name: 'duplicate JSON keys and __proto__: the last key wins, as JSON.parse reads it; nothing polluted',
    async run() {
      const reply = await call(
        'POST',
        '/quotes',
        '{"source":{"asset":"bitcoin:btc","amount":"1","amount":"100000"},"destination":{"asset":"ethereum:wbtc"},"__proto__":{"admin":true}}',
        KEY,
      );
      expect(reply.status === 201 && reply.json?.result?.source?.amount === '100000', reply.text.slice(0, 120));
    },
  },
  {
    kind: 'identity',
    name: 'the same quote_id with a different body: 409; the exact replay: 200 with the same order',
    async run() {
      const { body, order: created } = await order(`probe-${randomBytes(4).toString('hex')}`);
      const replay = await call('POST', '/orders', body, KEY);
      expect(replay.status === 200 && replay.json?.result?.order_id === created.order_id, `replay ${replay.status}`);
      const other = await call('POST', '/orders', { ...body, user_id: 'probe-someone-else' }, KEY);
      expect(other.status === 409, `different body ${other.status}`);
    },
  },
  // Time
  {
    kind: 'time',
    name: 'timestamps no calendar has (February 30, T24:00): 400 naming the field, not a scalar message',
    fixedIn: 'src/domain/input.ts (test/orders-read.test.ts)',
    async run() {
      for (const q of ['from=2026-02-30T00:00:00Z', 'to=2026-01-01T24:00:00Z']) {
        const reply = await call('GET', `/orders?${q}`);
        const field = q.split('=')[0];
        expect(
          reply.status === 400 && reply.json?.result?.startsWith(`${field} must be`),
          `${q}: ${reply.status} ${reply.text.slice(0, 80)}`,
        );
      }
    },
  },
  {
    kind: 'time',
    name: 'escrow events dated 1970 and 9999: chain facts, accepted; the statistics stay finite and non-negative',
    fixedIn: 'src/domain/escrow-events.ts, stats_completion_secs (test/event-timestamps.test.ts, test/stats-completion-clamp.test.ts)',
    skip: WATCHER_KEY ? undefined : 'PROBE_WATCHER_KEY',
    async run() {
      const { order: o, secret } = await order(`probe-${randomBytes(4).toString('hex')}`);
      const src = o.source_intent.swap_id;
      const dst = o.destination_intent.swap_id;
      expect((await postEvent(src, event('create', 1, '1970-01-01T00:00:00Z'))).status === 200, '1970 create');
      expect((await postEvent(dst, event('create', 1, '1970-01-01T00:00:01Z'))).status === 200, '1970 create');
      const claim = await postEvent(dst, event('claim', 2, '9999-12-31T23:59:59Z', { commitment: secret }));
      expect(claim.status === 200, `9999 claim ${claim.status}`);
      const stats = (await call('GET', '/stats')).json?.result;
      const avg = Number(stats?.all_time?.avg_completion_time_secs ?? 0);
      expect(Number.isFinite(avg) && avg >= 0, `avg_completion_time_secs ${avg}`);
    },
  },
  // Money
  {
    kind: 'money',
    name: 'amounts: 1 wei, 0, -1, 2^256-1, 2^256, 01, 1e3, 1.0, 5,000 digits: 400/422, never 500 or a quote',
    async run() {
      const max = (2n ** 256n - 1n).toString();
      for (const amount of ['1', '0', '-1', max, (2n ** 256n).toString(), '01', '1e3', '1.0', '9'.repeat(5000), ' 100000']) {
        const reply = await quote(amount);
        expect(reply.status === 400 || reply.status === 422, `${amount.slice(0, 12)}: ${reply.status}`);
      }
      const smallest = await quote('1000000000000000', 'ethereum:eth', 'bitcoin:btc');
      expect(smallest.status === 201 && BigInt(smallest.json!.result.destination.amount) > 0n, 'min ETH to BTC rounds to 0');
    },
  },
  {
    kind: 'money',
    name: 'an order paying out to the all-zero address (nobody holds its key): 400',
    fixedIn: 'src/domain/orders.ts (test/orders-create.test.ts)',
    async run() {
      const q = (await quote()).json!.result;
      const reply = await call('POST', '/orders', orderOnQuote(q, { recipient: `0x${'0'.repeat(40)}` }), KEY);
      expect(reply.status === 400 && /zero address/.test(reply.text), `${reply.status} ${reply.text.slice(0, 100)}`);
    },
  },
  {
    kind: 'money',
    name: 'an order whose amounts differ from its quote by 1 base unit: 422',
    async run() {
      const q = (await quote()).json!.result;
      const body = orderOnQuote(q, { amount: (BigInt(q.destination.amount) + 1n).toString() });
      expect((await call('POST', '/orders', body, KEY)).status === 422, 'destination + 1 accepted');
    },
  },
  // SSRF
  {
    kind: 'ssrf',
    name: 'webhook URLs with numeric hosts (2130706433, 0177.0.0.1, 0x7f.1, 127.1, 0), IPv6 forms, metadata: 400',
    async run() {
      for (const url of [
        'http://2130706433/',
        'http://0177.0.0.1/',
        'http://0x7f.1/',
        'http://127.1/',
        'http://0/',
        'http://%31%32%37.0.0.1/',
        'http://127\u30020\u30020\u30021/',
        'http://[::ffff:7f00:1]/',
        'http://[::127.0.0.1]/',
        'http://[64:ff9b::a9fe:a9fe]/',
        'http://169.254.169.254/',
        'http://[fe80::1]/',
        'file:///etc/passwd',
        'http://u:p@example.com/',
      ]) {
        const reply = await call('POST', '/webhooks', { url, events: ['claim.failed'] }, KEY);
        expect(reply.status === 400, `${url}: ${reply.status}`);
      }
    },
  },
  {
    kind: 'ssrf',
    name: 'a name that resolves to loopback (localhost): admitted at registration, refused at each send',
    async run() {
      const user = `probe-${randomBytes(4).toString('hex')}`;
      const endpoint = await call(
        'POST',
        '/webhooks',
        { url: 'http://localhost:9/', events: ['order.status_changed'], users: [user] },
        KEY,
      );
      expect(endpoint.status === 201, `register ${endpoint.status}`);
      const id = endpoint.json!.result.id;
      await order(user);
      let error: string | undefined;
      for (let i = 0; i < 40 && !error; i++) {
        await new Promise((r) => setTimeout(r, 250));
        error = (await call('GET', `/webhooks/${id}/deliveries`, undefined, KEY)).json?.result?.[0]?.last_error ?? undefined;
      }
      await call('DELETE', `/webhooks/${id}`, undefined, KEY);
      expect(/not a public address/.test(error ?? ''), `last error: ${error}`);
    },
  },
];

let failed = 0;
for (const attack of attacks) {
  const label = `[${attack.kind}] ${attack.name}`;
  if (attack.skip) {
    console.log(`skipped  ${label} (needs ${attack.skip})`);
    continue;
  }
  try {
    await attack.run();
    console.log(`${attack.fixedIn ? 'fixed' : 'held '}    ${label}${attack.fixedIn ? ` -- ${attack.fixedIn}` : ''}`);
  } catch (error) {
    failed++;
    console.log(`OPEN     ${label}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
console.log(`\n${attacks.length - failed} of ${attacks.length} held against ${BASE.origin}`);
process.exit(failed ? 1 : 0);
