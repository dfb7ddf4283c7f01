/**
 * The floor: the bench's read paths with nothing but node:http and pg, returning byte for byte the body the
 * service returns for the same request (test/bench-floor-matches-service.test.ts compares them), so a ratio compares equal work.
 * None of the service's checks, limits, logging or GraphQL layer: each request is one SQL statement in which
 * PostgreSQL builds the JSON (row_to_json, compact, keys in column order), and Node only wraps it. The create
 * path's floor is pgbench (./create-floor.ts), not this server.
 *
 *   PORT=4100 DATABASE_URL=... tsx test/bench/floor.ts
 *
 * Paths: GET /orders/user/{id}?limit=&page= (REST, snake_case), and POST /graphql carrying one of the fixed
 * documents in FLOOR_DOCUMENTS (the bench's GraphQL user page and keyset page). A GraphQL request is matched by
 * its exact text, as a persisted query would be: the floor parses no GraphQL.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

/** Intent columns in the order the service's documents select them (src/rest/documents.ts). */
const INTENT_COLUMNS = [
  'swap_id',
  'chain',
  'asset',
  'token_address',
  'creator',
  'recipient',
  'amount',
  'commitment_hash',
  'commitment',
  'cancel_after',
  'registry_address',
  'create_tx_hash',
  'create_block_number',
  'create_timestamp',
  'claim_tx_hash',
  'claim_block_number',
  'claim_timestamp',
  'cancel_tx_hash',
  'cancel_block_number',
  'cancel_timestamp',
  'l1_hop',
  'hop_bridge_factory',
  'hop_dest_blockchain_id',
  'hop_recipient',
  'hop_fee_token',
  'hop_relayer_fee',
  'final_chain',
  'final_token_address',
  'bridge_tx_hash',
  'created_at',
  'updated_at',
];
/** Columns the service sends as strings (decimals) or as second-precision UTC times. */
const TEXT = new Set(['amount', 'hop_relayer_fee', 'source_token_price', 'dest_token_price']);
const TIMES = new Set(['create_timestamp', 'claim_timestamp', 'cancel_timestamp', 'created_at', 'updated_at']);

const camel = (name: string) => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

function value(table: string, column: string): string {
  if (TIMES.has(column)) return `to_char(${table}.${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;
  if (TEXT.has(column)) return `${table}.${column}::text`;
  return `${table}.${column}`;
}

export type Keys = 'snake' | 'camel';
const key = (name: string, keys: Keys) => `"${keys === 'camel' ? camel(name) : name}"`;

/** The status at `now` (an SQL expression: the database's clock, or a test's). */
const status = (now: string) => `CASE WHEN o.stage = 'pending' AND o.deadline_at <= ${now} THEN 'expired'
  WHEN o.stage IN ('source_created', 'destination_created') AND o.dest_expires_at <= ${now} THEN 'refunding'
  ELSE o.stage::text END`;

function intentJson(table: string, keys: Keys): string {
  return `(SELECT row_to_json(i) FROM (SELECT ${INTENT_COLUMNS.map((c) => `${value(table, c)} AS ${key(c, keys)}`).join(', ')}) i)`;
}

/**
 * One order as compact JSON text, keys as the service's documents name and order them: an SQL expression over
 * the order row `o` and its intents `s` and `d` (test/order-json-paths.test.ts holds it to the service's JSON).
 */
export function orderJson(keys: Keys, now = 'now()'): string {
  const order = keys === 'snake' ? 'order_id' : 'orderId';
  const head = [
    `o.id AS "${order}"`,
    `o.user_id AS ${key('user_id', keys)}`,
    `o.quote_id AS ${key('quote_id', keys)}`,
    // GraphQL's OrderStatus enum is the upper-case name of the REST status.
    keys === 'snake' ? `${status(now)} AS "status"` : `upper(${status(now)}) AS "status"`,
    `${value('o', 'source_token_price')} AS ${key('source_token_price', keys)}`,
    `${value('o', 'dest_token_price')} AS ${key('dest_token_price', keys)}`,
    `o.fee_bips AS ${key('fee_bips', keys)}`,
  ];
  const intents = [
    `${intentJson('s', keys)} AS ${key('source_intent', keys)}`,
    `${intentJson('d', keys)} AS ${key('destination_intent', keys)}`,
  ];
  const times = [`${value('o', 'created_at')} AS ${key('created_at', keys)}`, `${value('o', 'updated_at')} AS ${key('updated_at', keys)}`];
  // REST's fragment puts the intents before the times (src/rest/documents.ts); the bench's GraphQL document after.
  const columns = keys === 'snake' ? [...head, ...intents, ...times] : [...head, ...times, ...intents];
  return `(SELECT row_to_json(r)::text FROM (SELECT ${columns.join(', ')}) r)`;
}

/**
 * The page's orders (`orders`, a statement that orders and limits them) with both intents, each looked up
 * by its key in a LATERAL subquery, as the service's row store reads them (BOTH_INTENTS in
 * src/db/row-store.ts says why that shape).
 */
const pageWithIntents = (orders: string) =>
  `(${orders}) o CROSS JOIN LATERAL (SELECT * FROM intents i WHERE i.swap_id = o.source_swap_id AND i.created_at = o.created_at LIMIT 1) s ` +
  'CROSS JOIN LATERAL (SELECT * FROM intents i WHERE i.swap_id = o.destination_swap_id AND i.created_at = o.created_at LIMIT 1) d';

/** A user's page: its orders' JSON joined with commas, and the user's total, in one statement. */
const userPageSql = (keys: Keys) => `
  SELECT (SELECT count(*)::int FROM orders WHERE user_id = $1) AS total,
    (SELECT string_agg(p.j, ',' ORDER BY p.created_at DESC, p.id DESC) FROM (
      SELECT o.created_at, o.id, ${orderJson(keys)} AS j
      FROM ${pageWithIntents('SELECT * FROM orders WHERE user_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3')}) p) AS data`;

/**
 * The page after a keyset cursor, newest first, with the next cursor as the service writes it:
 * base64 of `GPC:T:["D:<created_at in ms>","S:<id>"]` (plugin-prisma's cursor for `createdAt_id`).
 */
const keysetSql = `
  WITH p AS (SELECT o.created_at, o.id, ${orderJson('camel')} AS j
    FROM ${pageWithIntents('SELECT * FROM orders WHERE created_at <= $1 AND (created_at < $1 OR id < $2) ORDER BY created_at DESC, id DESC LIMIT $3')})
  SELECT (SELECT string_agg('{"node":' || j || '}', ',' ORDER BY created_at DESC, id DESC) FROM p) AS data,
    (SELECT replace(encode(convert_to('GPC:T:["D:' || (extract(epoch FROM created_at) * 1000)::bigint || '","S:' || id || '"]',
      'UTF8'), 'base64'), E'\\n', '') FROM p ORDER BY created_at, id LIMIT 1) AS cursor`;

const INTENT_FIELDS = INTENT_COLUMNS.map(camel).join(' ');
const ORDER_FIELDS = `orderId userId quoteId status sourceTokenPrice destTokenPrice feeBips createdAt updatedAt
  sourceIntent { ${INTENT_FIELDS} } destinationIntent { ${INTENT_FIELDS} }`;

/** The GraphQL documents the floor answers, sent unchanged to the service by the bench (test/bench/run.ts). */
export const FLOOR_DOCUMENTS = {
  userPage: `query($u: String!) { ordersByUser(userId: $u, limit: 20) { total data { ${ORDER_FIELDS} } } }`,
  keyset: `query($after: String!) { ordersConnection(first: 20, after: $after) { edges { node { ${ORDER_FIELDS} } } pageInfo { endCursor } } }`,
} as const;

/** A cursor as the service writes it, for the order at (createdAt, id). */
export function serviceCursor(createdAt: Date, id: string): string {
  return Buffer.from(`GPC:T:${JSON.stringify([`D:${createdAt.getTime()}`, `S:${id}`])}`).toString('base64');
}

function parseCursor(cursor: string): [Date, string] {
  const text = Buffer.from(cursor, 'base64').toString('utf8');
  const [at, id] = JSON.parse(text.slice('GPC:T:'.length)) as [string, string];
  return [new Date(Number(at.slice(2))), id.slice(2)];
}

function send(res: ServerResponse, status: number, body: string) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The floor's HTTP server over `pool` (not listening yet). Each statement is named, so each connection
 * prepares it once, as the service does its own (src/db/prepared-statements.ts).
 */
export function createFloor(pool: pg.Pool): Server {
  const restUserPage = userPageSql('snake');
  const graphqlUserPage = userPageSql('camel');

  async function userPage(userId: string, url: URL): Promise<string> {
    const limit = Math.min(100, Number(url.searchParams.get('limit') ?? 20));
    const page = Math.max(1, Number(url.searchParams.get('page') ?? 1));
    const { rows } = await pool.query({
      name: 'rest_user_page',
      text: restUserPage,
      values: [userId, limit, (page - 1) * limit],
      rowMode: 'array',
    });
    const [total, data] = rows[0] as [number, string | null];
    const pages = Math.ceil(total / limit);
    return `{"status":"Success","result":{"data":[${data ?? ''}],"page":${page},"limit":${limit},"total":${total},"total_pages":${pages}}}`;
  }

  async function graphql(body: string): Promise<[number, string]> {
    const { query, variables } = JSON.parse(body) as { query: string; variables: Record<string, string> };
    if (query === FLOOR_DOCUMENTS.userPage) {
      const { rows } = await pool.query({
        name: 'graphql_user_page',
        text: graphqlUserPage,
        values: [variables.u, 20, 0],
        rowMode: 'array',
      });
      const [total, data] = rows[0] as [number, string | null];
      return [200, `{"data":{"ordersByUser":{"total":${total},"data":[${data ?? ''}]}}}`];
    }
    if (query === FLOOR_DOCUMENTS.keyset) {
      const [at, id] = parseCursor(variables.after!);
      const { rows } = await pool.query({ name: 'keyset_page', text: keysetSql, values: [at, id, 20], rowMode: 'array' });
      const [data, cursor] = rows[0] as [string | null, string | null];
      const end = cursor === null ? 'null' : `"${cursor}"`;
      return [200, `{"data":{"ordersConnection":{"edges":[${data ?? ''}],"pageInfo":{"endCursor":${end}}}}}`];
    }
    return [400, '{"errors":[{"message":"the floor answers only its fixed documents"}]}'];
  }

  return createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://floor');
      if (url.pathname === '/health') return send(res, 200, '{}');
      const user = /^\/orders\/user\/([^/]+)$/.exec(url.pathname);
      if (req.method === 'GET' && user) return send(res, 200, await userPage(decodeURIComponent(user[1]!), url));
      if (req.method === 'POST' && url.pathname === '/graphql') {
        const [status, body] = await graphql(await readBody(req));
        return send(res, status, body);
      }
      send(res, 404, '{"status":"Error","result":"not found"}');
    } catch (error) {
      send(res, 500, JSON.stringify({ status: 'Error', result: (error as Error).message }));
    }
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  // Sessions as the service's row store has them (GENERIC_PLANS in src/db/database.ts): one plan per statement, no JIT.
  const pool = new pg.Pool({
    connectionString: process.env.DATABASE_URL,
    max: Number(process.env.FLOOR_POOL ?? 10),
    options: '-c plan_cache_mode=force_generic_plan -c jit=off',
  });
  const port = Number(process.env.PORT ?? 4100);
  createFloor(pool).listen(port, process.env.HOST ?? '127.0.0.1', () => console.log(`floor listening on ${port}`));
}

/**
 * What the CPU and profile runs load: up to 2,000 users with full pages (100+ orders), and the service's
 * cursor 100,000 orders deep (as in run.ts), or halfway into a smaller book.
 */
export async function readBook(databaseUrl: string): Promise<{ users: string[]; deepCursor: string }> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const users = (
      await db.query(`SELECT user_id FROM orders GROUP BY user_id HAVING count(*) >= 100 ORDER BY md5(user_id) LIMIT 2000`)
    ).rows.map((r) => r.user_id as string);
    const [deep] = (
      await db.query(`SELECT created_at, id FROM orders ORDER BY created_at DESC, id DESC
        OFFSET (SELECT least(100000, count(*) / 2) FROM orders) LIMIT 1`)
    ).rows;
    if (users.length === 0 || !deep) throw new Error(`${databaseUrl} needs the bench's seed (test/bench/README.md, Reproduce a run)`);
    return { users, deepCursor: serviceCursor(deep.created_at as Date, deep.id as string) };
  } finally {
    await db.end();
  }
}
