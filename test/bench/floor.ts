/**
 * The floor: what the bench's paths cost with nothing but node:http and pg. Same database, same
 * queries an engineer would write by hand, same JSON in the same envelope; none of the checks,
 * limits, logging or GraphQL layer of the service. Every framework adds to this.
 *
 *   PORT=4100 DATABASE_URL=... tsx test/bench/floor.ts
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const port = Number(process.env.PORT ?? 4100);

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
const NUMBERS = new Set(['cancel_after', 'create_block_number', 'claim_block_number', 'cancel_block_number']);

const SELECT_ORDERS = `
  SELECT o.id, o.user_id, o.quote_id, o.source_token_price, o.dest_token_price, o.fee_bips, o.created_at, o.updated_at,
    CASE WHEN o.stage = 'pending' AND o.deadline_at <= now() THEN 'expired'
         WHEN o.stage IN ('source_created', 'destination_created') AND o.dest_expires_at <= now() THEN 'refunding'
         ELSE o.stage::text END AS status,
    ${INTENT_COLUMNS.map((c) => `s.${c} AS s_${c}, d.${c} AS d_${c}`).join(', ')}
  FROM orders o JOIN intents s ON s.swap_id = o.source_swap_id JOIN intents d ON d.swap_id = o.destination_swap_id`;

const time = (v: Date | null) => (v === null ? null : v.toISOString().replace(/\.\d{3}Z$/, 'Z'));

function intent(row: Record<string, unknown>, prefix: string) {
  const out: Record<string, unknown> = {};
  for (const c of INTENT_COLUMNS) {
    const v = row[prefix + c];
    out[c] = v instanceof Date ? time(v) : NUMBERS.has(c) && v !== null ? Number(v) : v;
  }
  return out;
}

function order(row: Record<string, unknown>) {
  return {
    order_id: row.id,
    user_id: row.user_id,
    quote_id: row.quote_id,
    status: row.status,
    source_token_price: row.source_token_price,
    dest_token_price: row.dest_token_price,
    fee_bips: row.fee_bips,
    source_intent: intent(row, 's_'),
    destination_intent: intent(row, 'd_'),
    created_at: time(row.created_at as Date),
    updated_at: time(row.updated_at as Date),
  };
}

function send(res: ServerResponse, status: number, result: unknown) {
  const body = JSON.stringify(status < 400 ? { status: 'Success', result } : { status: 'Error', error: result });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** A request body as the floor reads it: trusted bench input, fields read directly. */
// biome-ignore lint/suspicious/noExplicitAny: the floor is a measuring stick, not an API; it checks nothing
type Body = Record<string, any>;

async function readJson(req: IncomingMessage): Promise<Body> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

async function page(where: string, params: unknown[], url: URL) {
  const limit = Math.min(100, Number(url.searchParams.get('limit') ?? 20));
  const pageNo = Math.max(1, Number(url.searchParams.get('page') ?? 1));
  // The page's ids first (index only), then their rows and intents: joins for 20 rows, not for every skipped one.
  const ids = `SELECT o.id FROM orders o WHERE ${where} ORDER BY o.created_at DESC, o.id DESC LIMIT ${limit} OFFSET ${(pageNo - 1) * limit}`;
  const [rows, count] = await Promise.all([
    pool.query(`${SELECT_ORDERS} WHERE o.id IN (${ids}) ORDER BY o.created_at DESC, o.id DESC`, params),
    pool.query(`SELECT count(*)::int AS n FROM orders o WHERE ${where}`, params),
  ]);
  const total = count.rows[0].n as number;
  return { data: rows.rows.map(order), page: pageNo, limit, total, total_pages: Math.ceil(total / limit) };
}

/** Keyset: the page after a (created_at, id) cursor, newest first. */
async function after(url: URL) {
  const limit = Math.min(100, Number(url.searchParams.get('limit') ?? 20));
  const [at, id] = Buffer.from(url.searchParams.get('after')!, 'base64url').toString().split('|');
  const rows = await pool.query(
    `${SELECT_ORDERS} WHERE (o.created_at, o.id) < ($1::timestamptz, $2) ORDER BY o.created_at DESC, o.id DESC LIMIT ${limit}`,
    [at, id],
  );
  const last = rows.rows.at(-1);
  const next = last ? Buffer.from(`${(last.created_at as Date).toISOString()}|${last.id}`).toString('base64url') : null;
  return { data: rows.rows.map(order), next };
}

const STATUS_WHERE: Record<string, string> = {
  completed: `o.stage = 'completed'`,
  cancelled: `o.stage = 'cancelled'`,
  destination_claimed: `o.stage = 'destination_claimed'`,
  pending: `o.stage = 'pending' AND o.deadline_at > now()`,
  expired: `o.stage = 'pending' AND o.deadline_at <= now()`,
};

/** A quote: the price arithmetic is the service's business, here a fixed rate is enough. */
async function createQuote(body: Body) {
  const id = `q_${randomBytes(18).toString('base64url')}`;
  const amount = BigInt(body.source.amount);
  const dest = (amount * 9970n) / 10000n;
  const { rows } = await pool.query(
    `INSERT INTO quotes (id, source_asset, source_amount, dest_asset, dest_amount, source_token_price, dest_token_price,
       fee_bips, solver, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, 1, 1, 30, '{}', date_trunc('second', now()), date_trunc('second', now()) + interval '5 minutes')
     RETURNING id, source_asset, source_amount, dest_asset, dest_amount, expires_at`,
    [id, body.source.asset, amount.toString(), body.destination.asset, dest.toString()],
  );
  const q = rows[0];
  return {
    quote_id: q.id,
    source: { asset: q.source_asset, amount: q.source_amount },
    destination: { asset: q.dest_asset, amount: q.dest_amount },
    expires_at: time(q.expires_at),
  };
}

/** An order in one transaction: lock the quote, consume it, write both intents and the order. */
async function createOrder(body: Body) {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query('SELECT * FROM quotes WHERE id = $1 FOR UPDATE', [body.quote_id]);
    const quote = rows[0];
    if (!quote) return [404, 'quote not found'] as const;
    if (quote.consumed_by) return [409, 'quote consumed'] as const;
    const id = randomBytes(32).toString('hex');
    const swap = (side: string) => createHash('sha256').update(`${id}:${side}`).digest('hex');
    const [src, dst] = [swap('source'), swap('destination')];
    await client.query('UPDATE quotes SET consumed_by = $1 WHERE id = $2', [id, quote.id]);
    const [sourceChain, destChain] = [quote.source_asset.split(':')[0], quote.dest_asset.split(':')[0]];
    await client.query(
      `INSERT INTO intents (swap_id, side, chain, asset, token_address, creator, recipient, amount, commitment_hash, cancel_after)
       VALUES ($1, 'source', $3, $4, 'primary', $5, 'solver', $6, $9, 0), ($2, 'destination', $7, $8, 'primary', 'solver', $10, $11, $9, 0)`,
      [
        src,
        dst,
        sourceChain,
        quote.source_asset,
        body.source.recipient,
        quote.source_amount,
        destChain,
        quote.dest_asset,
        body.commitment_hash,
        body.destination.recipient,
        quote.dest_amount,
      ],
    );
    await client.query(
      `INSERT INTO orders (id, user_id, quote_id, source_token_price, dest_token_price, fee_bips, commitment_hash, request_hash,
         deadline_at, dest_expires_at, source_chain, dest_chain, source_asset, dest_asset, volume_usd, source_swap_id,
         destination_swap_id, created_at, updated_at)
       VALUES ($1, $2, $3, 1, 1, 30, $4, '', now() + interval '1 hour', now() + interval '12 hours', $5, $6, $7, $8, 0, $9, $10,
         date_trunc('second', now()), date_trunc('second', now()))`,
      [id, body.user_id, quote.id, body.commitment_hash, sourceChain, destChain, quote.source_asset, quote.dest_asset, src, dst],
    );
    await client.query('COMMIT');
    return [201, { order_id: id, status: 'pending' }] as const;
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}

/** Statistics as a hand-written handler computes them: one aggregate pass over the book. */
async function stats() {
  const { rows } = await pool.query(`
    SELECT count(*)::int AS total_orders,
      count(*) FILTER (WHERE stage IN ('destination_claimed', 'completed'))::int AS completed_orders,
      count(*) FILTER (WHERE stage = 'cancelled' OR (stage = 'pending' AND deadline_at <= now()))::int AS cancelled_orders,
      count(DISTINCT user_id)::int AS unique_users, round(sum(volume_usd), 2)::float8 AS total_volume_usd,
      round(avg(extract(epoch FROM completed_at - created_at)) FILTER (WHERE stage IN ('destination_claimed', 'completed')), 2)::float8
        AS avg_completion_time_secs
    FROM orders`);
  return { all_time: rows[0] };
}

createServer(async (req, res) => {
  try {
    const url = new URL(req.url ?? '/', 'http://floor');
    const user = /^\/orders\/user\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && user) return send(res, 200, await page('o.user_id = $1', [decodeURIComponent(user[1]!)], url));
    if (req.method === 'GET' && url.pathname === '/orders' && url.searchParams.has('after')) return send(res, 200, await after(url));
    if (req.method === 'GET' && url.pathname === '/orders') {
      const status = url.searchParams.get('status');
      return send(res, 200, await page(status ? STATUS_WHERE[status]! : 'TRUE', [], url));
    }
    if (req.method === 'GET' && url.pathname === '/stats') return send(res, 200, await stats());
    if (req.method === 'POST' && url.pathname === '/quotes') return send(res, 201, await createQuote(await readJson(req)));
    if (req.method === 'POST' && url.pathname === '/orders') {
      const [status, result] = await createOrder(await readJson(req));
      return send(res, status, result);
    }
    send(res, 404, 'not found');
  } catch (error) {
    send(res, 500, (error as Error).message);
  }
}).listen(port, '127.0.0.1', () => console.log(`floor listening on ${port}`));
