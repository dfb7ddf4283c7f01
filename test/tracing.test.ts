import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DB } from './support/database.ts';
import { orderBody } from './support/fixtures.ts';
import { startServer, type ServerProcess } from './support/server-process.ts';

/** A span as OTLP/HTTP JSON carries it (ids in hex). */
interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string; intValue?: string | number } }[];
}

/**
 * The server as `npm start` runs it, exporting to a local OTLP/HTTP receiver; one REST request is followed from
 * the caller's traceparent down to its SQL. Runs once (PGlite project): tracing does not depend on the database.
 */
describe.skipIf(TEST_DB !== 'pglite')('traces over OTLP/HTTP', () => {
  const received: ReceivedSpan[] = [];
  let receiver: Server;
  let server: ServerProcess;
  let dataDir: string;

  beforeAll(async () => {
    receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        if (request.url === '/v1/traces') {
          const payload = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: ReceivedSpan[] }[] }[] };
          for (const resource of payload.resourceSpans) for (const scope of resource.scopeSpans) received.push(...scope.spans);
        }
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    }).listen(0, '127.0.0.1');
    await new Promise((resolve) => receiver.once('listening', resolve));
    const { port } = receiver.address() as { port: number };
    dataDir = mkdtempSync(join(tmpdir(), 'obg-tracing-'));
    server = await startServer({
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      LOG_LEVEL: 'info',
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
  }, 60_000);

  afterAll(async () => {
    await server?.kill();
    receiver?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('exports one REST request as a chain: HTTP span, GraphQL execution, Prisma, SQL; logs carry both ids', async () => {
    const post = (path: string, body: unknown) =>
      fetch(`${server.base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const quote = (
      await (
        await post('/quotes', { source: { asset: 'bitcoin:btc', amount: '10000000' }, destination: { asset: 'ethereum:wbtc' } })
      ).json()
    ).result;
    const order = (await (await post('/orders', orderBody(quote))).json()).result;

    // The caller's trace: the server's span must join it.
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    const response = await fetch(`${server.base}/orders/${order.order_id}`, {
      headers: { traceparent: `00-${traceId}-${callerSpanId}-01`, 'x-request-id': 'trace-test-1' },
    });
    expect(response.status).toBe(200);

    await expect
      .poll(() => received.filter((s) => s.traceId === traceId).some((s) => s.name === 'prisma:client:db_query'), { timeout: 10_000 })
      .toBe(true);
    const spans = received.filter((s) => s.traceId === traceId);
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const attribute = (span: ReceivedSpan, key: string) => span.attributes.find((a) => a.key === key)?.value;

    const http = spans.find((s) => s.name === 'GET /orders/:orderId')!;
    expect(http).toBeDefined();
    expect(http.parentSpanId).toBe(callerSpanId);
    expect(http.kind).toBe(2); // SERVER
    expect(attribute(http, 'http.response.status_code')?.intValue).toBe(200);

    const sql = spans.find(
      (s) => s.name === 'prisma:client:db_query' && /SELECT/i.test(String(attribute(s, 'db.query.text')?.stringValue)),
    )!;
    expect(sql).toBeDefined();
    // Walk up from the SQL statement to the caller: every parent is exported, and the chain passes through
    // Prisma's operation and the GraphQL execution of the REST route's document.
    const chain: string[] = [];
    for (let span: ReceivedSpan | undefined = sql; span; span = byId.get(span.parentSpanId ?? '')) chain.push(span.name);
    expect(chain.at(-1)).toBe('GET /orders/:orderId');
    expect(chain).toContain('graphql.execute query Order');
    expect(chain).toContain('prisma:client:operation');
    expect(chain.indexOf('prisma:client:operation')).toBeLessThan(chain.indexOf('graphql.execute query Order'));

    // The access-log line of that request names both its request id and its trace.
    const line = server
      .output()
      .split('\n')
      .find((l) => l.includes('"reqId":"trace-test-1"') && l.includes('"msg":"request"'));
    expect(line).toBeDefined();
    expect(JSON.parse(line!)).toMatchObject({ reqId: 'trace-test-1', traceId, spanId: http.spanId });
    const depth = (span: ReceivedSpan): number => (byId.has(span.parentSpanId ?? '') ? 1 + depth(byId.get(span.parentSpanId!)!) : 0);
    console.log(
      `trace ${traceId}:\n${spans.map((s) => `${'  '.repeat(depth(s))}${s.name} (${s.spanId} <- ${s.parentSpanId})`).join('\n')}`,
    );
  });
});
