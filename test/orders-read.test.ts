import { describe, expect } from 'vitest';
import { type Json, it } from './support/app.ts';
import { makeOrder } from './support/fixtures.ts';

const queries: string[] = [];
const created: Json[] = [];

it.override('appOptions', { onQuery: (sql) => queries.push(sql) });
it.beforeAll(async ({ t }) => {
  // 7 orders for alice, 3 for bob, on two pairs, one second apart so the order is unambiguous.
  for (let i = 0; i < 10; i++) {
    const pair = i % 2 === 0 ? {} : { source: 'ethereum:usdc', destination: 'base:usdc', amount: '50000000' };
    created.push(await makeOrder(t, pair, i < 7 ? 'alice' : 'bob'));
    t.clock.advance(1);
  }
});

const newestFirst = () => [...created].reverse().map((o) => o.order_id);

describe('GET /orders', () => {
  it('pages newest first with totals', async ({ t }) => {
    const reply = await t.rest('GET', '/orders?page=2&limit=3');
    expect(reply.status).toBe(200);
    const page = reply.body.result;
    expect(page).toMatchObject({ page: 2, limit: 3, total: 10, total_pages: 4 });
    expect(page.data.map((o: { order_id: string }) => o.order_id)).toEqual(newestFirst().slice(3, 6));
    expect(page.data[0].source_intent.swap_id).toBeTruthy();
  });

  it('defaults to page 1, limit 20, and answers a page past the end with empty data', async ({ t }) => {
    const first = (await t.rest('GET', '/orders')).body.result;
    expect(first).toMatchObject({ page: 1, limit: 20, total: 10, total_pages: 1 });
    const past = (await t.rest('GET', '/orders?page=9&limit=5')).body.result;
    expect(past).toEqual({ data: [], page: 9, limit: 5, total: 10, total_pages: 2 });
  });

  it('filters by status, chains, asset and time', async ({ t }) => {
    const byChain = (await t.rest('GET', '/orders?source_chain=ethereum&dest_chain=base')).body.result;
    expect(byChain.total).toBe(5);
    const byAsset = (await t.rest('GET', '/orders?asset=ethereum:wbtc')).body.result;
    expect(byAsset.total).toBe(5);
    const pending = (await t.rest('GET', '/orders?status=pending,expired')).body.result;
    expect(pending.total).toBe(10);
    const none = (await t.rest('GET', '/orders?status=completed')).body.result;
    expect(none.total).toBe(0);
    const from = created[4].created_at;
    const windowed = (await t.rest('GET', `/orders?from=${from}&to=${created[8].created_at}`)).body.result;
    expect(windowed.total).toBe(4);
  });

  it('derives expired from the clock once the deadline passes', async ({ t, clock }) => {
    clock.advance(t.config.orderDeadlineSeconds);
    const expired = (await t.rest('GET', '/orders?status=expired&limit=1')).body.result;
    expect(expired.total).toBe(10);
    expect(expired.data[0].status).toBe('expired');
  });

  it.for<[string, string]>([
    ['page=0', 'page must be an integer from 1 to 999999999'],
    ['page=abc', 'page must be an integer from 1 to 999999999'],
    ['page=1.5', 'page must be an integer from 1 to 999999999'],
    ['page=1000000000', 'page must be an integer from 1 to 999999999'],
    ['limit=0', 'limit must be an integer from 1 to 100'],
    ['limit=101', 'limit must be an integer from 1 to 100'],
    ['status=done', 'status must be one or more of'],
    ['source_chain=mars', 'source_chain must be a listed chain'],
    ['asset=bitcoin:doge', 'asset must be a listed asset'],
    ['from=yesterday', 'from must be an ISO 8601 timestamp'],
    // Dates JavaScript would roll over (to March 2, to the next day), named as the client's, not the scalar's.
    ['from=2026-02-30T00:00:00Z', 'from must be an ISO 8601 timestamp'],
    ['to=2026-01-01T24:00:00Z', 'to must be an ISO 8601 timestamp'],
    ['to=2026-01-01T12:00:00%2B25:00', 'to must be an ISO 8601 timestamp'],
    ['to=2026-01-01T12:00:00-03:60', 'to must be an ISO 8601 timestamp'],
  ])('400 for ?%s', async ([query, message], { t }) => {
    const reply = await t.rest('GET', `/orders?${query}`);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ status: 'Error', result: expect.stringContaining(message) });
  });

  it('ignores unknown query parameters', async ({ t }) => {
    expect((await t.rest('GET', '/orders?colour=blue')).status).toBe(200);
  });
});

describe('GET /orders/user/{user_id} and /orders/{order_id}', () => {
  it("lists one user's orders", async ({ t }) => {
    const page = (await t.rest('GET', '/orders/user/alice?limit=5')).body.result;
    expect(page).toMatchObject({ total: 7, total_pages: 2, limit: 5 });
    expect(page.data.every((o: { user_id: string }) => o.user_id === 'alice')).toBe(true);
    const nobody = (await t.rest('GET', '/orders/user/nobody')).body.result;
    expect(nobody).toEqual({ data: [], page: 1, limit: 20, total: 0, total_pages: 0 });
    expect((await t.rest('GET', '/orders/user/alice?limit=500')).status).toBe(400);
    // PostgreSQL text cannot hold NUL: refused up front, not a driver error.
    const nul = await t.rest('GET', '/orders/user/a%00b');
    expect(nul).toMatchObject({ status: 400, body: { result: 'user_id must not contain control characters' } });
    const gqlNul = await t.gql('query ($u: String!) { ordersByUser(userId: $u) { total } }', { u: 'a\u0000' });
    expect(gqlNul.errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
  });

  it('404s unknown and impossible order ids', async ({ t }) => {
    expect((await t.rest('GET', `/orders/${'0'.repeat(64)}`)).status).toBe(404);
    const impossible = await t.rest('GET', '/orders/not-an-id');
    expect(impossible.status).toBe(404);
    expect(impossible.body.status).toBe('Error');
  });
});

describe('GraphQL reads', () => {
  const PAGE = /* GraphQL */ `
    query ($limit: Int) {
      orders(limit: $limit) {
        total totalPages
        data {
          orderId status createdAt
          sourceIntent { swapId chain amount commitment cancelAfter createTimestamp }
          destinationIntent { swapId chain amount recipient }
        }
      }
    }`;

  it('costs a constant number of SQL queries for a page, whatever its size', async ({ t }) => {
    queries.length = 0;
    const small = await t.gql(PAGE, { limit: 1 });
    const smallCount = queries.length;
    queries.length = 0;
    const big = await t.gql(PAGE, { limit: 10 });
    const bigCount = queries.length;
    expect(small.data.orders.data).toHaveLength(1);
    expect(big.data.orders.data).toHaveLength(10);
    expect(bigCount).toBe(smallCount);
    // The page's ids, those orders, both sides' intents in one batch (the intent loader), and the total.
    expect(bigCount).toBeLessThanOrEqual(4);

    // A first page shorter than its limit holds the whole list: its length is the total, no COUNT.
    queries.length = 0;
    const whole = await t.gql(PAGE, { limit: 100 });
    expect(whole.data.orders.data).toHaveLength(10);
    expect(whole.data.orders.total).toBe(10);
    expect(queries.filter((q) => /count|stats_hourly/i.test(q))).toEqual([]);
    expect(queries.length).toBeLessThan(bigCount);
  });

  it('finds a status page by its ids first, then loads those rows', async ({ t }) => {
    queries.length = 0;
    const reply = await t.rest('GET', '/orders?status=pending,expired&limit=3');
    expect(reply.body.result.data.map((o: { order_id: string }) => o.order_id)).toEqual(newestFirst().slice(0, 3));
    const orderQueries = queries.filter((q) => /FROM ("public"\.)?"?orders"?/.test(q));
    // Ids alone (an index-only scan on stage, created_at, id), then the rows by id.
    expect(orderQueries[0]).toMatch(/^SELECT "public"\."orders"\."id" FROM "public"\."orders" WHERE .*"stage"/);
    expect(orderQueries[1]).toMatch(/FROM orders WHERE id = ANY/);
  });

  it('reads a relation only when the query asks for it', async ({ t }) => {
    queries.length = 0;
    const reply = await t.gql(`{ orders(limit: 5) { data { orderId status sourceIntent { chain amount } } } }`);
    expect(reply.errors).toBeUndefined();
    expect(reply.data.orders.data[0].sourceIntent.amount).toMatch(/^\d+$/);
    // The page's rows come with both intents, joined in the statement that reads them: no second query.
    const reads = queries.filter((q) => /intents/.test(q));
    expect(reads).toHaveLength(1);
    expect(reads[0]).toMatch(
      /FROM \(SELECT .* FROM orders .*\) o\s+CROSS JOIN LATERAL \(SELECT \* FROM intents i WHERE i\.swap_id = o\.source_swap_id/s,
    );
    queries.length = 0;
    await t.gql(`{ orders(limit: 5) { data { orderId } } }`);
    expect(queries.filter((q) => /intents/.test(q))).toEqual([]);
    // Asked for through a fragment, they are found too; a user's page is then one statement in all.
    queries.length = 0;
    const viaFragment = await t.gql(
      `{ ordersByUser(userId: "alice", limit: 2) { data { ...O } } } fragment O on Order { destinationIntent { chain } }`,
    );
    expect(viaFragment.data.ordersByUser.data[0].destinationIntent.chain).toBeTruthy();
    expect(queries).toHaveLength(1);
    expect(queries[0]).toMatch(/JOIN LATERAL \(SELECT \* FROM intents i WHERE i\.swap_id = o\.destination_swap_id/);
  });

  it('pages with keyset cursors through ordersConnection', async ({ t }) => {
    const query = /* GraphQL */ `
      query ($after: String) {
        ordersConnection(first: 4, after: $after) {
          edges { cursor node { orderId } }
          pageInfo { hasNextPage endCursor }
        }
      }`;
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const reply = await t.gql(query, { after });
      expect(reply.errors).toBeUndefined();
      const conn = reply.data.ordersConnection;
      seen.push(...conn.edges.map((e: { node: { orderId: string } }) => e.node.orderId));
      if (!conn.pageInfo.hasNextPage) break;
      after = conn.pageInfo.endCursor;
    }
    expect(seen).toEqual(newestFirst());
  });

  it('pages backwards and forwards from any cursor, ties on created_at included', async ({ t }) => {
    const all = await t.gql(`{ ordersConnection(first: 100) { edges { cursor node { orderId } } } }`);
    const edges = all.data.ordersConnection.edges as { cursor: string; node: { orderId: string } }[];
    const ids = edges.map((e) => e.node.orderId);
    expect(ids).toEqual(newestFirst());
    for (const at of [1, Math.floor(ids.length / 2), ids.length - 2]) {
      const cursor = edges[at]!.cursor;
      const before = await t.gql(`query ($c: String) { ordersConnection(last: 3, before: $c) { edges { node { orderId } } } }`, {
        c: cursor,
      });
      expect(before.data.ordersConnection.edges.map((e: { node: { orderId: string } }) => e.node.orderId)).toEqual(
        ids.slice(Math.max(0, at - 3), at),
      );
      const after = await t.gql(`query ($c: String) { ordersConnection(first: 3, after: $c) { edges { node { orderId } } } }`, {
        c: cursor,
      });
      expect(after.data.ordersConnection.edges.map((e: { node: { orderId: string } }) => e.node.orderId)).toEqual(
        ids.slice(at + 1, at + 4),
      );
    }
  });

  it("pages one user's filtered orders with keyset cursors, both ways", async ({ t }) => {
    const expected = [...created]
      .reverse()
      .filter((o) => o.user_id === 'alice' && o.source_intent.chain === 'ethereum')
      .map((o) => o.order_id);
    expect(expected.length).toBeGreaterThan(2);
    const page = (args: string) =>
      t.gql(`{ ordersConnection(${args}, userId: "alice", filter: { sourceChain: "ethereum" }) {
        edges { cursor node { orderId } } pageInfo { hasNextPage } } }`);
    const first = (await page('first: 2')).data.ordersConnection;
    expect(first.edges.map((e: Json) => e.node.orderId)).toEqual(expected.slice(0, 2));
    expect(first.pageInfo.hasNextPage).toBe(true);
    const rest = (await page(`first: 100, after: "${first.edges[1].cursor}"`)).data.ordersConnection;
    expect(rest.edges.map((e: Json) => e.node.orderId)).toEqual(expected.slice(2));
    const back = (await page(`last: 1, before: "${rest.edges[0].cursor}"`)).data.ordersConnection;
    expect(back.edges.map((e: Json) => e.node.orderId)).toEqual([expected[1]]);
  });

  it("reads a user's page and the user's total in one statement, whatever is asked", async ({ t }) => {
    for (const [query, expected] of [
      [`{ ordersByUser(userId: "bob") { total totalPages } }`, { total: 3, totalPages: 1 }],
      [`{ ordersByUser(userId: "alice", limit: 2) { total data { orderId sourceIntent { chain } } } }`, { total: 7 }],
    ] as const) {
      queries.length = 0;
      const reply = await t.gql(query);
      expect(reply.data.ordersByUser).toMatchObject(expected);
      expect(queries).toHaveLength(1);
      expect(queries[0]).toMatch(/count\(\*\) FROM orders WHERE user_id/);
    }
    // Past the end no row carries the count: it is read on its own.
    queries.length = 0;
    const past = await t.gql(`{ ordersByUser(userId: "bob", page: 9) { total data { orderId } } }`);
    expect(past.data.ordersByUser).toEqual({ total: 3, data: [] });
    expect(queries).toHaveLength(2);
  });

  it('refuses a forged cursor as a bad request, and still reads a cursor whose time is text', async ({ t }) => {
    const cursor = (chunk: string) => Buffer.from(`GPC:${chunk}`).toString('base64');
    const page = (after: string) =>
      t.gql(`query ($a: String) { ordersConnection(first: 2, after: $a) { edges { node { orderId } } } }`, { a: after });
    // A NUL in the id would reach PostgreSQL, which refuses it as text: an internal error, not the client's.
    for (const forged of [
      cursor('T:["D:abc","S:x"]'),
      cursor('T:["N:5","S:x"]'),
      cursor('T:["D:0","N:7"]'),
      cursor('T:["D:1","S:\\u0000"]'),
    ]) {
      expect((await page(forged)).errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
    }
    const ids = newestFirst();
    const third = created.find((o) => o.order_id === ids[2]);
    const legacy = cursor(`J:${JSON.stringify([third.created_at, third.order_id])}`);
    expect((await page(legacy)).data.ordersConnection.edges.map((e: Json) => e.node.orderId)).toEqual(ids.slice(3, 5));
  });

  it('pages by cursors alone (no node selected), and refuses mixed directions as a bad request', async ({ t }) => {
    const ids = newestFirst();
    const full = await t.gql(`{ ordersConnection(first: 3) { edges { cursor node { orderId } } } }`);
    const cursors = full.data.ordersConnection.edges.map((e: Json) => e.cursor);
    const bare = await t.gql(`{ ordersConnection(first: 3) { edges { cursor } pageInfo { hasNextPage endCursor } } }`);
    expect(bare.errors).toBeUndefined();
    expect(bare.data.ordersConnection.edges.map((e: Json) => e.cursor)).toEqual(cursors);
    expect(bare.data.ordersConnection.pageInfo).toEqual({ hasNextPage: ids.length > 3, endCursor: cursors[2] });
    const info = await t.gql(`{ ordersConnection(first: 1) { pageInfo { hasNextPage } } }`);
    expect(info.errors).toBeUndefined();
    expect(info.data).toEqual({ ordersConnection: { pageInfo: { hasNextPage: ids.length > 1 } } });

    for (const mixed of [`first: 1, before: "${cursors[1]}"`, `last: 1, after: "${cursors[1]}"`]) {
      const reply = await t.gql(`{ ordersConnection(${mixed}) { edges { cursor } } }`);
      expect(reply.errors?.[0]?.extensions?.code, mixed).toBe('BAD_REQUEST');
      expect(reply.errors?.[0]?.message, mixed).toMatch(/cannot be used together/);
    }
  });

  it('caps connection pages at 100', async ({ t }) => {
    const reply = await t.gql(`{ ordersConnection(first: 101) { edges { cursor } } }`);
    expect(reply.errors?.[0]).toMatchObject({ message: 'first must be from 0 to 100', extensions: { code: 'BAD_REQUEST' } });
    // A negative size is refused by plugin-relay before the resolver: still the client's error, not INTERNAL.
    for (const size of ['first', 'last']) {
      const negative = await t.gql(`{ ordersConnection(${size}: -5) { edges { cursor } } }`);
      expect(negative.errors?.[0]).toMatchObject({ message: `${size} must be from 0 to 100`, extensions: { code: 'BAD_REQUEST' } });
    }
  });

  it("reads one order and one user's page", async ({ t }) => {
    const id = created[0].order_id;
    const one = await t.gql(`query ($id: String!) { order(orderId: $id) { orderId userId status } }`, { id });
    expect(one.data.order).toEqual({ orderId: id, userId: 'alice', status: 'PENDING' });
    const missing = await t.gql(`{ order(orderId: "${'f'.repeat(64)}") { orderId } }`);
    expect(missing.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const byUser = await t.gql(`{ ordersByUser(userId: "bob", limit: 2) { total totalPages data { userId } } }`);
    expect(byUser.data.ordersByUser).toMatchObject({ total: 3, totalPages: 2 });
    const bad = await t.gql(`{ orders(page: 0) { total } }`);
    expect(bad.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_REQUEST' } });
  });
});
