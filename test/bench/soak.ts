/**
 * The soak: a mixed load on one server as production runs it (PostgreSQL, Redis, NODE_ENV=production), for
 * SOAK_MINUTES (10), sampling the server's RSS, V8 heap, open descriptors and event-loop lag; every answer's
 * status is counted, and at the end every webhook receiver must hold exactly the deliveries the outbox made.
 *
 *   npm run bench:soak                      # own database soak_<pid> on TEST_POSTGRES_URL's server, dropped after
 *   SOAK_MINUTES=1 SOAK_CLIENTS=16 SOAK_PAUSE_MS=0 npm run bench:soak   # shorter, harder
 *
 * SOAK_CLIENTS (8) loops, each pausing SOAK_PAUSE_MS (500) between rounds; SOAK_SUBSCRIBERS (40);
 * SOAK_SAMPLE_SECONDS (60); SOAK_DRAIN_SECONDS (600) to wait for the webhook backlog after the load.
 *
 * Each client loops: quote + order, both escrows created (watcher key), the relayer asked to claim the
 * destination, the user page, the order, /stats, a GraphQL page, and every 25th round the user's NDJSON export.
 * SSE and WebSocket subscribers follow the soak's users throughout.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import pg from 'pg';
import { WebSocket } from 'ws';
import { createDatabase } from '../support/postgres-setup.ts';
import { startServer } from '../support/server-process.ts';
import { USER_BTC, USER_EVM } from '../support/fixtures.ts';

const minutes = Number(process.env.SOAK_MINUTES ?? '10');
const clients = Number(process.env.SOAK_CLIENTS ?? '8');
const subscribers = Number(process.env.SOAK_SUBSCRIBERS ?? '40');
const pauseMs = Number(process.env.SOAK_PAUSE_MS ?? '500');
const sampleEveryMs = Number(process.env.SOAK_SAMPLE_SECONDS ?? '60') * 1000;
const users = Array.from({ length: 20 }, (_, i) => `soak-${i}`);
const KEY = 'soak-key';
const WATCHER = 'soak-watcher';

// Two receivers: each counts the distinct webhook-id headers it was sent (a retry resends the same id).
const received = [new Set<string>(), new Set<string>()];
const receivers = await Promise.all(
  received.map(async (ids) => {
    const server = createServer((req, res) => {
      ids.add(String(req.headers['webhook-id']));
      req.resume().on('end', () => res.end());
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook` };
  }),
);

const database = await createDatabase({ prefix: `soak_${process.pid}`, migrate: true });
const server = await startServer({
  NODE_ENV: 'production',
  LOG_LEVEL: 'warn',
  DATABASE_URL: database.url,
  REDIS_URL: process.env.SOAK_REDIS_URL ?? 'redis://127.0.0.1:6379',
  API_KEYS: KEY,
  WATCHER_KEY: WATCHER,
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  STATS_CACHE_SECONDS: '2',
});
const pid = server.child.pid!;
const base = server.base;
const statuses = new Map<number, number>();
let requests = 0;
let failures = 0;
const failureReasons = new Map<string, number>();

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  try {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${KEY}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    requests++;
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    return { status: response.status, body: response.headers.get('content-type')?.includes('application/json') ? JSON.parse(text) : text };
  } catch (error) {
    failures++;
    const reason = `${method} ${path.split('?')[0]!.replace(/[0-9a-f]{16,}|soak-\d+/g, ':id')}: ${(error as Error).cause ?? (error as Error).name}`;
    failureReasons.set(reason, (failureReasons.get(reason) ?? 0) + 1);
    return { status: 0, body: undefined };
  }
}

for (const r of receivers) {
  const made = await call('POST', '/webhooks', { url: r.url, events: ['order.status_changed', 'claim.confirmed', 'claim.failed'] });
  if (made.status !== 201) throw new Error(`webhook registration: ${made.status}`);
}

const tx = () => `0x${randomBytes(32).toString('hex')}`;
const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

async function round(client: number, n: number) {
  const user = users[(client + n) % users.length]!;
  const quote = await call('POST', '/quotes', {
    source: { asset: 'bitcoin:btc', amount: '10000000' },
    destination: { asset: 'ethereum:wbtc' },
  });
  if (quote.status === 201) {
    const q = quote.body.result;
    const secret = randomBytes(32);
    const order = await call('POST', '/orders', {
      user_id: user,
      quote_id: q.quote_id,
      commitment_hash: createHash('sha256').update(secret).digest('hex'),
      source: { asset: q.source.asset, recipient: USER_BTC, amount: q.source.amount },
      destination: { asset: q.destination.asset, recipient: USER_EVM, amount: q.destination.amount },
    });
    if (order.status === 201) {
      const o = order.body.result;
      const w = { authorization: `Bearer ${WATCHER}` };
      await call(
        'POST',
        `/intents/${o.source_intent.swap_id}/events`,
        { kind: 'create', tx_hash: tx(), block_number: 840000, timestamp: now() },
        w,
      );
      await call(
        'POST',
        `/intents/${o.destination_intent.swap_id}/events`,
        { kind: 'create', tx_hash: tx(), block_number: 19000000, timestamp: now() },
        w,
      );
      await call('POST', '/relayer/claims', { order_id: o.order_id, commitment: secret.toString('hex') });
      await call('GET', `/orders/${o.order_id}`);
    }
  }
  await call('GET', `/orders/user/${user}?limit=20`);
  await call('GET', '/stats');
  await call('POST', '/graphql', { query: 'query { orders(limit: 20) { total data { orderId status sourceIntent { amount } } } }' });
  if (n % 25 === 0) await call('GET', `/orders/user/${user}/export?format=ndjson`);
}

// Subscribers: half SSE (a streamed GET), half WebSocket (graphql-ws), each on one soak user.
let messages = 0;
const sockets: WebSocket[] = [];
const sse = new AbortController();
for (let i = 0; i < subscribers; i++) {
  const query = `subscription { userOrdersUpdated(userId: "${users[i % users.length]}") { orderId status } }`;
  if (i % 2 === 0) {
    void fetch(`${base}/graphql?query=${encodeURIComponent(query)}`, { headers: { accept: 'text/event-stream' }, signal: sse.signal })
      .then(async (response) => {
        for await (const chunk of response.body!) if (String(Buffer.from(chunk)).includes('event: next')) messages++;
      })
      .catch(() => {});
  } else {
    const ws = new WebSocket(`${base.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
    ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${KEY}` } })));
    ws.on('message', (raw) => {
      const m = JSON.parse(String(raw));
      if (m.type === 'connection_ack') ws.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query } }));
      if (m.type === 'next') messages++;
    });
    sockets.push(ws);
  }
}

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : Number.NaN;
}

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
const rows: string[] = [];
async function sample(elapsedMs: number) {
  const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
  const fds = readdirSync(`/proc/${pid}/fd`).length;
  const heap = await metric('nodejs_heap_size_used_bytes');
  const lag = await metric('nodejs_eventloop_lag_p99_seconds');
  const fivexx = [...statuses].filter(([s]) => s >= 500).reduce((a, [, c]) => a + c, 0);
  rows.push(
    `| ${(elapsedMs / 60_000).toFixed(0)} min | ${requests.toLocaleString('en')} | ${mib(rss)} MiB | ${mib(heap)} MiB | ${fds} | ${(lag * 1000).toFixed(1)} ms | ${fivexx} | ${messages.toLocaleString('en')} |`,
  );
  console.log(rows.at(-1));
}

const started = Date.now();
const end = started + minutes * 60_000;
console.log('| elapsed | requests | RSS | heap used | descriptors | event-loop lag p99 | 5xx | subscription messages |');
console.log('|---|---|---|---|---|---|---|---|');
await sample(0);
const sampler = setInterval(() => void sample(Date.now() - started), sampleEveryMs);
await Promise.all(
  Array.from({ length: clients }, async (_, client) => {
    for (let n = 0; Date.now() < end; n++) {
      await round(client, n);
      await new Promise((r) => setTimeout(r, pauseMs));
    }
  }),
);
clearInterval(sampler);
await sample(Date.now() - started);

// Every delivery the outbox made must reach its receiver exactly once (distinct ids), within a minute.
const db = new pg.Client({ connectionString: database.url });
await db.connect();
const expected = async () => (await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM webhook_deliveries`)).rows[0]!.n;
const drainStarted = Date.now();
const drainLimit = drainStarted + Number(process.env.SOAK_DRAIN_SECONDS ?? '600') * 1000;
const deliveredNow = () => received.reduce((a, s) => a + s.size, 0);
const backlog = { at_end_of_load: Number(await expected()) - deliveredNow(), drain_seconds: 0 };
let outbox = await expected();
while (deliveredNow() < Number(outbox) && Date.now() < drainLimit) {
  await new Promise((r) => setTimeout(r, 500));
  outbox = await expected();
}
backlog.drain_seconds = Math.round((Date.now() - drainStarted) / 1000);
const delivered = deliveredNow();
console.log(
  JSON.stringify({
    minutes,
    clients,
    subscribers,
    requests,
    failures,
    failureReasons: Object.fromEntries(failureReasons),
    statuses: Object.fromEntries(statuses),
    outbox: Number(outbox),
    delivered,
    backlog,
  }),
);
await db.end();
sse.abort();
for (const ws of sockets) ws.terminate();
await server.kill('SIGTERM');
for (const r of receivers) r.server.close();
await database.drop();
if (delivered !== Number(outbox) || [...statuses.keys()].some((s) => s >= 500)) process.exitCode = 1;
