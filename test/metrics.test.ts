import { createServer } from 'node:http';
import { getMetricsFromIterator, type PromMetrics } from 'prom2javascript';
import { describe, expect } from 'vitest';
import { buildSchema } from 'graphql';
import { deprecatesFields } from '../src/schema/deprecations.ts';
import { OPERATION_NAMES, serveMetricsOnPort } from '../src/http/metrics.ts';
import { schema } from '../src/schema/index.ts';
import { type TestApp, it } from './support/app.ts';
import { TEST_DB } from './support/database.ts';
import { escrowEvent, postEvent } from './support/events.ts';
import { makeQuote, newSecret, orderBody } from './support/fixtures.ts';

/**
 * Parses the Prometheus text format (prom2javascript): a line it cannot read fails the test. It cannot read
 * NaN values, which the format allows (the event-loop lag before its first sample), so those are left out.
 */
const parse = (text: string): Promise<PromMetrics> =>
  getMetricsFromIterator(
    text
      .split('\n')
      .filter((line) => !/ nan$/i.test(line))
      [Symbol.iterator](),
  );

/** Scrapes /metrics the way Prometheus does: GET, text format. */
async function scrape(t: TestApp): Promise<PromMetrics> {
  const response = await t.app.fetch('http://test/metrics');
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain; version=0.0.4');
  return parse(await response.text());
}

/** The sample whose labels include `labels`: its value (counter, gauge) or its count (histogram). */
function sample(metrics: PromMetrics, name: string, labels: Record<string, string> = {}): number | undefined {
  const data = (metrics[name]?.data ?? []) as { labels: Record<string, string>; value?: number; count?: number }[];
  const found = data.find((d) => Object.entries(labels).every(([k, v]) => d.labels[k] === v));
  return found && (found.count ?? found.value);
}

describe('GET /metrics', () => {
  it('counts REST requests per route pattern with latency, and errors by code', async ({ t }) => {
    const before = await scrape(t);
    const was = (labels: Record<string, string>) => sample(before, 'orderbook_http_request_duration_seconds', labels) ?? 0;
    const missing = { method: 'GET', route: '/orders/:orderId', status_code: '404' };
    const notFoundBefore = sample(before, 'orderbook_errors_total', { api: 'rest', code: 'NOT_FOUND' }) ?? 0;

    await t.rest('GET', `/orders/${'a'.repeat(64)}`);
    await t.rest('GET', `/orders/${'b'.repeat(64)}`);
    await makeQuote(t);
    await t.rest('POST', '/quotes', { source: { asset: 'bitcoin:btc', amount: '-1' }, destination: { asset: 'ethereum:wbtc' } });

    const after = await scrape(t);
    expect(after.orderbook_http_request_duration_seconds?.type).toBe('histogram');
    // The ids never become labels: both requests land on the route's pattern.
    expect(sample(after, 'orderbook_http_request_duration_seconds', missing)).toBe(was(missing) + 2);
    const created = { method: 'POST', route: '/quotes', status_code: '201' };
    expect(sample(after, 'orderbook_http_request_duration_seconds', created)).toBe(was(created) + 1);
    expect(sample(after, 'orderbook_errors_total', { api: 'rest', code: 'NOT_FOUND' })).toBe(notFoundBefore + 2);
    expect(sample(after, 'orderbook_errors_total', { api: 'rest', code: 'BAD_REQUEST' })).toBeGreaterThanOrEqual(1);
    const routes = after.orderbook_http_request_duration_seconds!.data.map((d) => d.labels.route);
    expect(routes.some((route) => route?.includes('aaaa'))).toBe(false);
  });

  it('counts GraphQL operations by name, and GraphQL errors by code, a wrong method on /graphql too', async ({ t }) => {
    const before = await scrape(t);
    const wrongMethod = sample(before, 'orderbook_errors_total', { api: 'graphql', code: 'METHOD_NOT_ALLOWED' }) ?? 0;
    expect((await t.app.fetch('http://test/graphql', { method: 'PUT' })).status).toBe(405);
    expect(sample(await scrape(t), 'orderbook_errors_total', { api: 'graphql', code: 'METHOD_NOT_ALLOWED' })).toBe(wrongMethod + 1);
    const op = { operationName: 'ChainIds', operationType: 'query' };
    const ran = sample(before, 'graphql_envelop_request_duration', op) ?? 0;
    const gqlNotFound = sample(before, 'orderbook_errors_total', { api: 'graphql', code: 'NOT_FOUND' }) ?? 0;

    await t.gql('query ChainIds { chains { id } }');
    await t.gql(`query Missing { order(orderId: "${'c'.repeat(64)}") { orderId } }`);

    const after = await scrape(t);
    expect(sample(after, 'graphql_envelop_request_duration', op)).toBe(ran + 1);
    expect(sample(after, 'orderbook_errors_total', { api: 'graphql', code: 'NOT_FOUND' })).toBe(gqlNotFound + 1);
  });

  it('keeps at most OPERATION_NAMES operation names as labels; later made-up names share "other"', async ({ t }) => {
    const names = (metrics: PromMetrics, metric = 'graphql_envelop_request') =>
      new Set(((metrics[metric]?.data ?? []) as { labels: Record<string, string> }[]).map((d) => d.labels.operationName));
    const seen = names(await scrape(t)).size;
    // Past the bound by 20, and one name that is no GraphQL name (sent as the operationName parameter).
    const made = Array.from({ length: OPERATION_NAMES + 20 - seen }, (_, i) => `Made${i}`);
    for (const name of made) await t.gql(`query ${name} { __typename }`);
    const odd = await t.app.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }', operationName: 'x'.repeat(200) }),
    });
    expect(odd.status).toBeLessThan(500);

    const after = await scrape(t);
    const labelled = names(after);
    expect(labelled.size).toBe(OPERATION_NAMES + 1);
    expect(labelled.has('other')).toBe(true);
    expect(labelled.has(made[0]!)).toBe(true);
    expect(labelled.has(made.at(-1)!)).toBe(false);
    expect(sample(after, 'graphql_envelop_request', { operationName: 'other', operationType: 'query' })).toBeGreaterThanOrEqual(20);
    // Every GraphQL metric is bounded the same way, and errors carry no path (its list indexes).
    for (const metric of ['graphql_envelop_request_duration', 'graphql_envelop_phase_validate', 'graphql_envelop_phase_execute']) {
      expect(names(after, metric).size, metric).toBe(OPERATION_NAMES + 1);
    }
    // A resolver error of a made-up name: counted, as other, and without the path of the field that failed.
    await t.gql(`query ${made.at(-1)} { order(orderId: "${'d'.repeat(64)}") { orderId } }`);
    const errorSeries = ((await scrape(t)).graphql_envelop_error_result?.data ?? []) as { labels: Record<string, string> }[];
    expect(errorSeries.some((d) => d.labels.operationName === 'other' && d.labels.phase === 'execute')).toBe(true);
    expect(errorSeries.every((d) => !('path' in d.labels))).toBe(true);
  });

  it('counts deprecated fields only for a schema that deprecates one (the count walks every document)', async ({ t }) => {
    const deprecating = buildSchema('type Query { old: Int @deprecated(reason: "use new") new: Int }');
    expect(deprecatesFields(deprecating)).toBe(true);
    expect(deprecatesFields(buildSchema('type Query { new: Int } enum E { A B @deprecated }'))).toBe(true);
    expect(deprecatesFields(schema)).toBe(false);
    expect(await (await t.app.fetch('http://test/metrics')).text()).not.toContain('graphql_envelop_deprecated_field');
  });

  it('counts stats cache hits and misses', async ({ t }) => {
    await t.statsCache.clear();
    const before = await scrape(t);
    const hits = sample(before, 'orderbook_stats_cache_requests_total', { result: 'hit' }) ?? 0;
    const misses = sample(before, 'orderbook_stats_cache_requests_total', { result: 'miss' }) ?? 0;
    await t.rest('GET', '/stats');
    await t.rest('GET', '/stats');
    const after = await scrape(t);
    expect(sample(after, 'orderbook_stats_cache_requests_total', { result: 'miss' })).toBe(misses + 1);
    expect(sample(after, 'orderbook_stats_cache_requests_total', { result: 'hit' })).toBe(hits + 1);
  });

  it('reports the relayer queue depth and each claim outcome', async ({ t }) => {
    const { secret, commitmentHash } = newSecret();
    const quote = await makeQuote(t);
    const order = (await t.rest('POST', '/orders', orderBody(quote, { commitment_hash: commitmentHash }))).body.result;
    await postEvent(t, order.source_intent.swap_id, escrowEvent('create', 10, {}, t.clock.now()));
    await postEvent(t, order.destination_intent.swap_id, escrowEvent('create', 2000, {}, t.clock.now()));
    const depth = sample(await scrape(t), 'orderbook_relayer_queue_depth')!;
    expect((await t.rest('POST', '/relayer/claims', { order_id: order.order_id, commitment: secret })).status).toBe(202);
    expect(sample(await scrape(t), 'orderbook_relayer_queue_depth')).toBe(depth + 1);

    const outcome = (families: PromMetrics, name: string) => sample(families, 'orderbook_relayer_claims_total', { outcome: name }) ?? 0;
    const before = await scrape(t);
    await t.runtime.worker.tick();
    await t.runtime.chain.flush();
    await t.runtime.worker.tick();
    const after = await scrape(t);
    expect(outcome(after, 'submitted')).toBe(outcome(before, 'submitted') + 1);
    expect(outcome(after, 'confirmed')).toBe(outcome(before, 'confirmed') + 1);
    expect(sample(after, 'orderbook_relayer_queue_depth')).toBe(depth);
  });

  it('counts open subscriptions', async ({ t }) => {
    const open = async () => sample(await scrape(t), 'orderbook_graphql_subscriptions');
    const before = await open();
    // Over a real socket: closing it is how a client leaves an SSE subscription.
    const server = createServer(t.app).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as { port: number };
    const controller = new AbortController();
    const response = await fetch(`http://127.0.0.1:${port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: `subscription { orderUpdated(orderId: "${'d'.repeat(64)}") { status } }` }),
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    await expect.poll(open).toBe(before! + 1);
    controller.abort();
    await expect.poll(open).toBe(before);
    server.close();
  });

  it('has the process metrics, and the database pool on PostgreSQL', async ({ t }) => {
    const families = await scrape(t);
    expect(sample(families, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(families.nodejs_eventloop_lag_seconds).toBeDefined();
    if (TEST_DB === 'postgres') {
      expect(sample(families, 'orderbook_db_pool_connections', { state: 'idle' })).toBeGreaterThanOrEqual(0);
      expect(sample(families, 'orderbook_db_pool_waiting')).toBe(0);
    } else {
      expect(families.orderbook_db_pool_connections).toBeUndefined();
    }
  });
});

describe('METRICS and METRICS_PORT', () => {
  it('METRICS=off: no /metrics, and the path is an unknown one', async ({ apps }) => {
    const t = await apps({ env: { METRICS: 'off' } });
    expect(t.runtime.metrics).toBeUndefined();
    const response = await t.rest('GET', '/metrics');
    expect(response.status).toBe(404);
    expect(response.body.status).toBe('Error');
  });

  it('METRICS_PORT: /metrics on its own port and not on the API port', async ({ apps }) => {
    const t = await apps({ env: { METRICS_PORT: '9464' } });
    // The server would listen on METRICS_PORT; a free port stands in for it here.
    const server = serveMetricsOnPort(t.runtime.metrics!, 0, '127.0.0.1');
    try {
      await new Promise((resolve) => server.once('listening', resolve));
      expect((await t.rest('GET', '/metrics')).status).toBe(404);
      const { port } = server.address() as { port: number };
      const response = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(response.status).toBe(200);
      expect(Object.keys(await parse(await response.text()))).toContain('orderbook_http_request_duration_seconds');
      expect((await fetch(`http://127.0.0.1:${port}/orders`)).status).toBe(404);
    } finally {
      server.close();
    }
  });
});
