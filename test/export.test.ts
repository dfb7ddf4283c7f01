import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse } from 'csv-parse/sync';
import { describe, expect } from 'vitest';
import { seed } from '../prisma/scripts/seed/index.ts';
import { loadConfig } from '../src/config.ts';
import { createHttpServer } from '../src/http/node-server.ts';
import { EXPORT_COLUMNS } from '../src/rest/export.ts';
import { it, type TestApp } from './support/app.ts';
import { makeOrder, makeQuote, orderBody } from './support/fixtures.ts';

// More than two export pages (100 each), so the keyset cursor is followed across pages.
const ORDERS = 230;

const queries: string[] = [];
it.override('appOptions', { onQuery: (sql: string) => queries.push(sql) });

// The file's database, seeded before its app starts.
it.beforeAll(async ({ db }) => {
  await seed({
    db,
    config: loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent' }),
    orders: ORDERS,
    users: 6,
    days: 3,
    seed: 'export',
    log: () => {},
  });
}, 180_000);

/** Every order the paged list returns for this query, newest first. */
async function listAll(t: TestApp, path: string): Promise<Record<string, unknown>[]> {
  const all: Record<string, unknown>[] = [];
  for (let page = 1; ; page++) {
    const sep = path.includes('?') ? '&' : '?';
    const reply = await t.rest('GET', `${path}${sep}limit=100&page=${page}`);
    expect(reply.status).toBe(200);
    all.push(...reply.body.result.data);
    if (page >= reply.body.result.total_pages) return all;
  }
}

async function download(t: TestApp, path: string) {
  const response = await t.app.fetch(`http://test${path}`);
  return { response, text: await response.text() };
}

const flat = (order: Record<string, unknown>) =>
  EXPORT_COLUMNS.map((c) => {
    const value = c.path.reduce<unknown>((v, k) => (v as Record<string, unknown> | null)?.[k], order);
    return value === null || value === undefined ? '' : String(value);
  });

describe('GET /orders/export', () => {
  it('streams every order as NDJSON, each line the order as the REST list returns it, newest first', async ({ t }) => {
    const { response, text } = await download(t, '/orders/export?format=ndjson');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="orders-all-\d{8}T\d{6}Z\.ndjson"$/);
    const lines = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(ORDERS);
    expect(lines).toEqual(await listAll(t, '/orders'));
    // Amounts stay exact integer strings.
    expect(typeof lines[0].source_intent.amount).toBe('string');
  });

  it('writes CSV with one column per field of the order and both intents', async ({ t }) => {
    const { response, text } = await download(t, '/orders/export?format=csv');
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toMatch(/filename="orders-all-\d{8}T\d{6}Z\.csv"$/);
    const [header, ...rows] = parse(text) as string[][];
    expect(header).toContain('order_id');
    expect(header).toContain('source_intent.amount');
    expect(header).toContain('destination_intent.claim_tx_hash');
    expect(header).toHaveLength(EXPORT_COLUMNS.length);
    const listed = await listAll(t, '/orders');
    expect(rows).toEqual(listed.map(flat));
    // Every leaf of a REST order is a column.
    const leaves = (o: Record<string, unknown>, prefix = ''): string[] =>
      Object.entries(o).flatMap(([k, v]) =>
        v && typeof v === 'object' ? leaves(v as Record<string, unknown>, `${prefix}${k}.`) : [`${prefix}${k}`],
      );
    expect(header).toEqual(leaves(listed[0]!));
  });

  it('applies the list filters', async ({ t }) => {
    const query = 'status=completed,cancelled&source_chain=bitcoin';
    const { text } = await download(t, `/orders/export?format=ndjson&${query}`);
    const ids = text
      .trimEnd()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).order_id);
    const listed = await listAll(t, `/orders?${query}`);
    expect(listed.length).toBeGreaterThan(0);
    expect(ids).toEqual(listed.map((o) => o.order_id));
  });

  it('answers a bad format or filter with the error envelope', async ({ t }) => {
    const bad = await t.rest('GET', '/orders/export?format=xlsx');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ status: 'Error', result: 'format must be one of csv, ndjson' });
    const badFilter = await t.rest('GET', '/orders/export?format=csv&status=lost');
    expect(badFilter.status).toBe(400);
    expect(badFilter.body.status).toBe('Error');
    expect(badFilter.body.result).toMatch(/^status must be/);
  });

  it('is an empty file with its header when nothing matches', async ({ t }) => {
    const { response, text } = await download(t, '/orders/export?format=csv&from=2001-01-01T00:00:00Z&to=2001-01-02T00:00:00Z');
    expect(response.status).toBe(200);
    expect(parse(text)).toEqual([EXPORT_COLUMNS.map((c) => c.name)]);
    const ndjson = await download(t, '/orders/export?format=ndjson&from=2001-01-01T00:00:00Z&to=2001-01-02T00:00:00Z');
    expect(ndjson.text).toBe('');
  });
});

describe('GET /orders/user/{user_id}/export', () => {
  it("exports one user's orders, with filters", async ({ t }) => {
    const anyOrder = (await t.rest('GET', '/orders?limit=1')).body.result.data[0];
    const user = anyOrder.user_id as string;
    const { response, text } = await download(t, `/orders/user/${encodeURIComponent(user)}/export?format=ndjson`);
    expect(response.headers.get('content-disposition')).toContain(`orders-${user.replace(/[^A-Za-z0-9._-]/g, '_')}-`);
    const lines = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual(await listAll(t, `/orders/user/${encodeURIComponent(user)}`));
    expect(new Set(lines.map((l) => l.user_id))).toEqual(new Set([user]));

    const pending = await download(t, `/orders/user/${encodeURIComponent(user)}/export?format=ndjson&status=completed`);
    const completed = pending.text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(completed.map((o) => o.order_id)).toEqual(lines.filter((o) => o.status === 'completed').map((o) => o.order_id));
  });

  it('quotes CSV cells a spreadsheet would misread: commas, quotes, line breaks and formulas', async ({ t }) => {
    const user = 'acme, "treasury" =SUM(A1)';
    const order = await makeOrder(t, {}, user);
    const { text } = await download(t, `/orders/user/${encodeURIComponent(user)}/export?format=csv`);
    const [header, row] = parse(text) as string[][];
    const cellOf = (name: string) => row![header!.indexOf(name)];
    expect(cellOf('order_id')).toBe(order.order_id);
    expect(cellOf('user_id')).toBe(user);
    expect(text).toContain('"acme, ""treasury"" =SUM(A1)"');

    const formula = '=HYPERLINK("http://x")';
    await t.rest('POST', '/orders', orderBody(await makeQuote(t), {}, formula));
    const csv = (await download(t, `/orders/user/${encodeURIComponent(formula)}/export?format=csv`)).text;
    const [, formulaRow] = parse(csv) as string[][];
    // A leading quote keeps the cell text in a spreadsheet.
    expect(formulaRow![EXPORT_COLUMNS.findIndex((c) => c.name === 'user_id')]).toBe(`'${formula}`);
  });
});

describe('HEAD of an export', () => {
  /** One request over a real socket (Node drops a HEAD's body as it is written); the SQL it ran. */
  async function over(t: TestApp, method: string) {
    const server: Server = createHttpServer(t.app, {
      headersTimeoutMs: 5_000,
      requestTimeoutMs: 10_000,
      keepAliveTimeoutMs: 500,
      maxRequestsPerSocket: 10,
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    queries.length = 0;
    const answer = await new Promise<{ status: number; type: string | undefined; bytes: number }>((resolve, reject) => {
      const req = httpRequest({
        port: (server.address() as AddressInfo).port,
        host: '127.0.0.1',
        path: '/orders/export?format=ndjson',
        method,
      });
      req.on('response', (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'], bytes }));
      });
      req.on('error', reject);
      req.end();
    });
    // Whatever the stream still does after the answer.
    await new Promise((resolve) => setTimeout(resolve, 500));
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    return { ...answer, queries: queries.length };
  }

  it('answers with the headers and reads no page past the first', async ({ t }) => {
    const get = await over(t, 'GET');
    const head = await over(t, 'HEAD');
    expect(head).toMatchObject({ status: 200, type: get.type, bytes: 0 });
    expect(get.bytes).toBeGreaterThan(0);
    // GET reads three pages; HEAD the first only (a refused filter is still an error envelope).
    expect(head.queries).toBeLessThan(get.queries);
  });
});

describe('export limits', () => {
  it('counts against the same rate limits as every other path', async ({ apps }) => {
    const limited = await apps({ env: { RATE_LIMIT_PER_IP: '2', TRUST_PROXY: 'true' } });
    const call = () =>
      limited.app.fetch('http://test/orders/export?format=ndjson&source_chain=bitcoin', {
        headers: { 'x-forwarded-for': '203.0.113.9' },
      });
    for (let i = 0; i < 2; i++) {
      const ok = await call();
      await ok.text();
      expect(ok.status).toBe(200);
    }
    const refused = await call();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBeTruthy();
  });
});
