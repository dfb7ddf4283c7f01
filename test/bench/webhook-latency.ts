/**
 * Webhook delivery latency: from an order's 201 to its order.status_changed arriving at a receiver on
 * loopback, through `npm start` with its worker polling every WEBHOOK_POLL_MS (500 ms by default).
 *
 *   npx tsx test/bench/webhook-latency.ts            # embedded PGlite in a temporary directory
 *   DATABASE_URL=postgresql://... npx tsx test/bench/webhook-latency.ts
 *   WEBHOOK_BENCH_ORDERS (40)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOne, postJson } from '../faults/server.ts';
import { startServer } from '../support/server-process.ts';

const orders = Number(process.env.WEBHOOK_BENCH_ORDERS ?? '40');
const arrived = new Map<string, number>();
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const event = JSON.parse(body) as { data: { order_id: string } };
    if (!arrived.has(event.data.order_id)) arrived.set(event.data.order_id, performance.now());
    res.end();
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
const dataDir = mkdtempSync(join(tmpdir(), 'webhook-bench-'));
const server = await startServer({
  LOG_LEVEL: 'warn',
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  ...(process.env.DATABASE_URL ? {} : { DATA_DIR: dataDir }),
});
try {
  const registered = await postJson(server.base, '/webhooks', { url, events: ['order.status_changed'] });
  if (registered.status !== 201) throw new Error(JSON.stringify(registered.body));
  const acknowledged = new Map<string, number>();
  for (let i = 0; i < orders; i++) {
    const id = await createOne(server.base, `bench-${i}`);
    if (id) acknowledged.set(id, performance.now());
    await new Promise((r) => setTimeout(r, 50));
  }
  const end = performance.now() + 30_000;
  while ([...acknowledged.keys()].some((id) => !arrived.has(id)) && performance.now() < end) await new Promise((r) => setTimeout(r, 50));
  const latencies = [...acknowledged]
    .filter(([id]) => arrived.has(id))
    .map(([id, at]) => arrived.get(id)! - at)
    .sort((a, b) => a - b);
  const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!);
  console.log(
    JSON.stringify(
      { orders: acknowledged.size, delivered: latencies.length, latency_ms: { p50: at(0.5), p95: at(0.95), max: at(1) } },
      null,
      2,
    ),
  );
} finally {
  await server.kill('SIGTERM');
  receiver.close();
  rmSync(dataDir, { recursive: true, force: true });
}
