import { parse } from 'csv-parse/sync';
import { expect } from 'vitest';
import { seed } from '../prisma/scripts/seed/index.ts';
import { webhookRenderer } from '../src/runtime.ts';
import { orderJson, type Keys } from './bench/floor.ts';
import { it, type Json } from './support/app.ts';

/**
 * Every path that turns an order into JSON answers the same fields and values for the same orders: REST's
 * single order (the reference), GraphQL, the user page PostgreSQL renders (src/rest/rendered-pages.ts), the
 * list, the export as NDJSON and CSV (src/rest/export.ts), a webhook's payload (src/runtime.ts), and the
 * bench's floor (test/bench/floor.ts). The seed gives orders in every status, with their escrow events filled.
 */

type Order = Record<string, Json>;

let reference: Map<string, Order>;
let userIds: string[];

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const camel = (name: string) => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** A GraphQL order as REST spells it: snake_case keys, the status in lowercase. */
function fromGraphql(order: Order): Order {
  return Object.fromEntries(
    Object.entries(order).map(([key, value]) => [
      snake(key),
      key === 'status' ? (value as string).toLowerCase() : value && typeof value === 'object' ? fromGraphql(value) : value,
    ]),
  );
}

/** The GraphQL selection of every field REST's order carries. */
function graphqlFields(order: Order): string {
  return Object.entries(order)
    .map(([key, value]) => (value && typeof value === 'object' ? `${camel(key)} { ${graphqlFields(value)} }` : camel(key)))
    .join(' ');
}

const byId = (orders: Order[]) => new Map(orders.map((order) => [order.order_id as string, order]));

/** Each order of `found` equals the reference, and every reference order is there. */
function expectAll(found: Map<string, Order>) {
  expect([...found.keys()].sort()).toEqual([...reference.keys()].sort());
  for (const [id, order] of found) expect(order, id).toEqual(reference.get(id));
}

it.beforeAll(async ({ t }) => {
  await seed({ db: t.db, config: t.config, orders: 60, users: 3, days: 4, seed: 'json-paths', now: t.clock.now });
  const ids = (await t.db.prisma.order.findMany({ select: { id: true, userId: true } })) as { id: string; userId: string }[];
  userIds = [...new Set(ids.map((o) => o.userId))];
  reference = new Map();
  for (const { id } of ids) {
    const reply = await t.rest('GET', `/orders/${id}`);
    expect(reply.status).toBe(200);
    reference.set(id, reply.body.result as Order);
  }
}, 120_000);

it('covers orders in several statuses, with escrow events filled', () => {
  const statuses = new Set([...reference.values()].map((o) => o.status as string));
  expect(statuses.size).toBeGreaterThanOrEqual(5);
  const claimed = [...reference.values()].filter((o) => o.destination_intent.claim_tx_hash !== null);
  expect(claimed.length).toBeGreaterThan(0);
});

it('GraphQL answers the same orders', async ({ t }) => {
  const fields = graphqlFields(reference.values().next().value!);
  const found = new Map<string, Order>();
  for (const id of reference.keys()) {
    const reply = await t.gql(`query($id: String!) { order(orderId: $id) { ${fields} } }`, { id });
    expect(reply.errors).toBeUndefined();
    found.set(id, fromGraphql(reply.data.order));
  }
  expectAll(found);
});

it('the rendered user page and the list answer the same orders', async ({ t }) => {
  const pages: Order[] = [];
  for (const user of userIds) {
    const reply = await t.rest('GET', `/orders/user/${encodeURIComponent(user)}?limit=100`);
    expect(reply.status).toBe(200);
    pages.push(...reply.body.result.data);
  }
  expectAll(byId(pages));
  const list = await t.rest('GET', '/orders?limit=100');
  expect(list.status).toBe(200);
  expectAll(byId(list.body.result.data));
});

it('the export answers the same orders, as NDJSON and as CSV', async ({ t }) => {
  const ndjson = await t.app.fetch('http://test/orders/export?format=ndjson');
  expect(ndjson.status).toBe(200);
  const lines = (await ndjson.text()).trim().split('\n');
  expectAll(byId(lines.map((line) => JSON.parse(line) as Order)));

  const csv = await t.app.fetch('http://test/orders/export?format=csv');
  expect(csv.status).toBe(200);
  const rows = parse(await csv.text(), { columns: true }) as Record<string, string>[];
  // A CSV cell is text: null is empty, and a cell a spreadsheet would run as a formula starts with '.
  const cell = (value: Json) => (value === null ? '' : /^[=+\-@]/.test(String(value)) ? `'${value}` : String(value));
  const flat = (order: Order, prefix = ''): [string, string][] =>
    Object.entries(order).flatMap(([key, value]) =>
      value && typeof value === 'object' ? flat(value, `${prefix}${key}.`) : [[`${prefix}${key}`, cell(value)] as [string, string]],
    );
  expect(rows.map((row) => row.order_id).sort()).toEqual([...reference.keys()].sort());
  for (const row of rows) expect(row).toEqual(Object.fromEntries(flat(reference.get(row.order_id!)!)));
});

it("a webhook's payload carries the same order", async ({ t }) => {
  const render = webhookRenderer(t.app);
  const found = new Map<string, Order>();
  for (const [id, order] of reference) {
    const data = (await render({ type: 'order.status_changed', orderId: id, status: order.status, previousStatus: null })) as Order;
    expect(data.previous_status).toBeNull();
    const { previous_status: _, ...rest } = data;
    found.set(id, rest);
  }
  expectAll(found);
});

it("the bench's floor renders the same orders, in both spellings", async ({ t }) => {
  const floor = async (keys: Keys) => {
    // The floor's SQL at the test's clock, over the same joins the floor reads (test/bench/floor.ts).
    const now = `'${t.clock.now().toISOString()}'::timestamptz`;
    const rows = await t.db.prisma.$queryRawUnsafe<{ j: string }[]>(
      `SELECT ${orderJson(keys, now)} AS j FROM orders o
       JOIN intents s ON s.swap_id = o.source_swap_id AND s.created_at = o.created_at
       JOIN intents d ON d.swap_id = o.destination_swap_id AND d.created_at = o.created_at`,
    );
    return rows.map((row) => JSON.parse(row.j) as Order);
  };
  expectAll(byId(await floor('snake')));
  expectAll(byId((await floor('camel')).map(fromGraphql)));
});
