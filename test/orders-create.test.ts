import { describe, expect } from 'vitest';
import { randomBytes } from 'node:crypto';
import { it } from './support/app.ts';
import { findQuote } from '../src/domain/quotes.ts';
import { makeQuote, newSecret, orderBody, USER_BTC, USER_EVM } from './support/fixtures.ts';

describe('POST /orders', () => {
  it('creates an order from a quote with the contract mapping', async ({ t }) => {
    const quote = await makeQuote(t);
    const body = orderBody(quote);
    const reply = await t.rest('POST', '/orders', body);
    expect(reply.status).toBe(201);
    expect(reply.body.status).toBe('Success');
    const order = reply.body.result;
    expect(order.order_id).toMatch(/^[0-9a-f]{64}$/);
    expect(order).toMatchObject({
      user_id: 'user-1',
      quote_id: quote.quote_id,
      status: 'pending',
      source_token_price: quote.source_token_price,
      dest_token_price: quote.dest_token_price,
      fee_bips: quote.fee_bips,
    });
    const src = order.source_intent;
    const dst = order.destination_intent;
    // The user locks the source for the solver; the solver locks the destination for the user.
    expect(src).toMatchObject({ chain: 'bitcoin', asset: 'bitcoin:btc', creator: USER_BTC, recipient: quote.solver.bitcoin });
    expect(dst).toMatchObject({ chain: 'ethereum', asset: 'ethereum:wbtc', creator: quote.solver.ethereum, recipient: USER_EVM });
    expect(src.amount).toBe(quote.source.amount);
    expect(dst.amount).toBe(quote.destination.amount);
    expect(src.commitment_hash).toBe(body.commitment_hash);
    expect(src.commitment).toBeNull();
    expect(src.create_tx_hash).toBeNull();
    expect(src.swap_id).toMatch(/^[0-9a-f]{64}$/);
    expect(src.swap_id).not.toBe(dst.swap_id);
    // Destination refunds before source: 12 h and 24 h after creation.
    const created = Date.parse(order.created_at) / 1000;
    expect(dst.cancel_after).toBe(created + 12 * 3600);
    expect(src.cancel_after).toBe(created + 24 * 3600);
    expect(order.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);

    const read = await t.rest('GET', `/orders/${order.order_id}`);
    expect(read.status).toBe(200);
    expect(read.body.result).toEqual(order);
    const consumed = await t.rest('GET', `/quotes/${quote.quote_id}`);
    expect(consumed.body.result.consumed_by).toBe(order.order_id);
  });

  it('makes order ids that lead with their creation time: a later order sorts after, in the database too', async ({ t, clock }) => {
    const ids: string[] = [];
    const seconds = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const reply = await t.rest('POST', '/orders', orderBody(await makeQuote(t)));
      expect(reply.status).toBe(201);
      const id: string = reply.body.result.order_id;
      expect(id).toMatch(/^[0-9a-f]{64}$/);
      // The first 12 hex digits are the milliseconds of the clock it was made by; the rest is random.
      expect(Number.parseInt(id.slice(0, 12), 16)).toBe(clock.now().getTime());
      ids.push(id);
      seconds.add(reply.body.result.created_at);
      // Milliseconds apart, within one second: created_at (whole seconds) cannot tell them apart, the ids can.
      clock.advance(0.007);
    }
    expect(seconds.size).toBe(1);
    expect(new Set(ids.map((id) => id.slice(12))).size).toBe(3);
    // As the indexes order them (text, in the database's collation), not only as JavaScript compares.
    const sorted = await t.db.driver.query<{ id: string }>('SELECT id FROM orders WHERE id = ANY($1) ORDER BY id', [ids]);
    expect(sorted.map((row) => row.id)).toEqual(ids);
  });

  it('replays an identical request with 200 and the same order, even after expiry, after normalisation', async ({ t, clock }) => {
    const quote = await makeQuote(t, { source: 'ethereum:wbtc', destination: 'bitcoin:btc', amount: '5000000' });
    const body = orderBody(quote);
    const first = await t.rest('POST', '/orders', body);
    expect(first.status).toBe(201);
    clock.advance(t.config.quoteTtlSeconds + 60);
    const again = await t.rest('POST', '/orders', {
      ...body,
      source: { ...body.source, recipient: body.source.recipient.toLowerCase() },
      commitment_hash: `0x${body.commitment_hash.toUpperCase()}`,
    });
    expect(again.status).toBe(200);
    expect(again.body.result.order_id).toBe(first.body.result.order_id);
  });

  it('refuses a different request on a consumed quote with 409', async ({ t }) => {
    const quote = await makeQuote(t);
    expect((await t.rest('POST', '/orders', orderBody(quote))).status).toBe(201);
    const other = await t.rest('POST', '/orders', orderBody(quote, {}, 'user-2'));
    expect(other.status).toBe(409);
    expect(other.body).toEqual({ status: 'Error', result: expect.stringContaining('quote_id') });
    // One that also differs from the quote (its amount): consumed comes before the match, as the contract orders them.
    const mismatched = await t.rest(
      'POST',
      '/orders',
      orderBody(quote, { destination: { ...orderBody(quote).destination, amount: '1' } }, 'user-3'),
    );
    expect(mismatched.status).toBe(409);
    expect(mismatched.body.result).toContain('already used');
  });

  it('answers 404 for an unknown quote and 410 for an expired one', async ({ t, clock }) => {
    const quote = await makeQuote(t);
    const unknown = await t.rest('POST', '/orders', orderBody(quote, { quote_id: 'q_doesnotexist' }));
    expect(unknown.status).toBe(404);
    clock.advance(t.config.quoteTtlSeconds);
    const expired = await t.rest('POST', '/orders', orderBody(quote));
    expect(expired.status).toBe(410);
    // The time as the API writes every time: whole seconds.
    expect(expired.body.result).toBe(`quote_id ${quote.quote_id} expired at ${quote.expires_at}`);
    expect(quote.expires_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  });

  it('answers 422 when the request does not match its quote', async ({ t }) => {
    const quote = await makeQuote(t);
    const body = orderBody(quote);
    const cases = [
      { ...body, source: { ...body.source, amount: '10000001' } },
      { ...body, destination: { ...body.destination, amount: '1' } },
      { ...body, destination: { ...body.destination, asset: 'arbitrum:wbtc' } },
    ];
    for (const wrong of cases) {
      const reply = await t.rest('POST', '/orders', wrong);
      expect(reply.status, JSON.stringify(wrong)).toBe(422);
    }
    // Nothing was consumed by the refused attempts.
    expect((await t.rest('POST', '/orders', body)).status).toBe(201);
  });

  it('refuses a reused commitment hash with 409', async ({ t }) => {
    const { commitmentHash } = newSecret();
    const q1 = await makeQuote(t);
    const q2 = await makeQuote(t);
    expect((await t.rest('POST', '/orders', orderBody(q1, { commitment_hash: commitmentHash }))).status).toBe(201);
    const reused = await t.rest('POST', '/orders', orderBody(q2, { commitment_hash: commitmentHash }));
    expect(reused.status).toBe(409);
    expect(reused.body.result).toContain('commitment_hash');
    // The refusal consumed nothing: the quote still makes an order with a fresh secret.
    expect((await t.rest('POST', '/orders', orderBody(q2))).status).toBe(201);
  });

  it.for<[Record<string, unknown>, string]>([
    [{ user_id: undefined }, 'user_id is required'],
    [{ user_id: 42 }, 'user_id must be a string'],
    [{ user_id: 'a\u0000b' }, 'user_id must not contain control characters'],
    [{ quote_id: undefined }, 'quote_id is required'],
    [{ source: 'x' }, 'source must be an object'],
    [{ destination: undefined }, 'destination must be an object'],
    [{ commitment_hash: 'abc' }, 'commitment_hash must be 32 bytes of hex'],
    [{ commitment_hash: undefined }, 'commitment_hash is required'],
  ])('400 for %j', async ([override, message], { t }) => {
    const quote = await makeQuote(t);
    const body = { ...orderBody(quote), ...override };
    const reply = await t.rest('POST', '/orders', body);
    expect(reply.status).toBe(400);
    expect(reply.body.status).toBe('Error');
    expect(reply.body.result).toContain(message);
  });

  it.for<[string, string, unknown, string]>([
    ['source', 'amount', '', 'source.amount must be a positive integer string in base units'],
    ['source', 'amount', null, 'source.amount is required'],
    ['source', 'amount', 1000, 'source.amount must be a positive integer string in base units'],
    ['source', 'amount', '0x10', 'source.amount must be a positive integer string in base units'],
    ['destination', 'amount', '-5', 'destination.amount must be a positive integer string in base units'],
    ['source', 'recipient', 'not-an-address', 'source.recipient must be a valid'],
    ['source', 'recipient', 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx', 'source.recipient must be a valid'],
    ['destination', 'recipient', `0x${'5A'.repeat(19)}5a`, 'destination.recipient must be a valid'],
    ['destination', 'recipient', `0x${'0'.repeat(40)}`, 'destination.recipient must not be the zero address'],
    ['destination', 'asset', 'no-colon', 'destination.asset must be an asset id'],
  ])('400 for %s.%s = %j', async ([leg, field, value, message], { t }) => {
    const quote = await makeQuote(t);
    const body = orderBody(quote) as unknown as Record<string, Record<string, unknown>>;
    body[leg] = { ...body[leg], [field]: value };
    const reply = await t.rest('POST', '/orders', body);
    expect(reply.status).toBe(400);
    expect(reply.body.result).toContain(message);
  });

  it('checks shape before the quote: a bad field on an unknown quote is still a 400', async ({ t }) => {
    const quote = await makeQuote(t);
    const reply = await t.rest('POST', '/orders', orderBody(quote, { quote_id: 'q_unknown', commitment_hash: 'zz' }));
    expect(reply.status).toBe(400);
  });

  it('consumes a quote exactly once under concurrent creates', async ({ t }) => {
    const quote = await makeQuote(t);
    const attempts = 25;
    const replies = await Promise.all(
      Array.from({ length: attempts }, (_, i) => t.rest('POST', '/orders', orderBody(quote, {}, `racer-${i}`))),
    );
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(attempts - 1);
    const winner = replies.find((r) => r.status === 201)!.body.result;
    const count = await t.db.prisma.order.count({ where: { quoteId: quote.quote_id } });
    expect(count).toBe(1);
    const stored = await t.rest('GET', `/quotes/${quote.quote_id}`);
    expect(stored.body.result.consumed_by).toBe(winner.order_id);
  });

  it('concurrent identical replays all get the one order', async ({ t }) => {
    const quote = await makeQuote(t);
    const body = orderBody(quote);
    const replies = await Promise.all(Array.from({ length: 10 }, () => t.rest('POST', '/orders', body)));
    const ids = new Set(replies.map((r) => r.body.result.order_id));
    expect(ids.size).toBe(1);
    expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
    expect(replies.filter((r) => r.status === 200)).toHaveLength(9);
  });
});

describe('createOrder mutation', () => {
  it('creates through GraphQL and reports domain errors with extensions.code', async ({ t }) => {
    const quote = await makeQuote(t);
    const body = orderBody(quote);
    const mutation = /* GraphQL */ `
      mutation ($input: CreateOrderInput!) {
        createOrder(input: $input) { replayed order { orderId status sourceIntent { creator } } }
      }`;
    const input = {
      userId: body.user_id,
      quoteId: body.quote_id,
      source: body.source,
      destination: body.destination,
      commitmentHash: body.commitment_hash,
    };
    const created = await t.gql(mutation, { input });
    expect(created.errors).toBeUndefined();
    expect(created.data.createOrder).toMatchObject({ replayed: false, order: { status: 'PENDING' } });
    const replay = await t.gql(mutation, { input });
    expect(replay.data.createOrder.replayed).toBe(true);
    const conflict = await t.gql(mutation, { input: { ...input, userId: 'someone-else' } });
    expect(conflict.errors?.[0]?.extensions?.code).toBe('QUOTE_CONSUMED');
    const bad = await t.gql(mutation, { input: { ...input, source: { ...input.source, amount: '01' } } });
    expect(bad.errors?.[0]).toMatchObject({
      message: 'source.amount must be a positive integer string in base units',
      extensions: { code: 'BAD_REQUEST' },
    });
  });
});

describe('statements of a create', () => {
  it('makes a quote without a statement, then writes its order in one, and answers from the rows it wrote', async ({ apps }) => {
    const statements: string[] = [];
    // The statements are the database's, so it is one of this test's own.
    const app = await apps({ freshDatabase: true, onQuery: (sql) => statements.push(sql) });
    await makeQuote(app);
    statements.length = 0;
    // The signing key was read by the first quote; a quote is signed, not stored (src/domain/signed-quotes.ts).
    const quote = await makeQuote(app);
    expect(statements).toEqual([]);
    const created = await app.rest('POST', '/orders', orderBody(quote));
    expect(created.status).toBe(201);
    // One statement stores the quote as consumed and inserts both intents and the order (one commit, no lock
    // held across round trips); nothing read before or after, no BEGIN/COMMIT.
    expect(statements).toHaveLength(1);
    const write = statements[0]!.replace(/\s+/g, ' ').trim();
    expect(write).toMatch(
      /^WITH consumed AS \( INSERT INTO quotes \(.*\) .* ON CONFLICT \(id\) DO UPDATE SET consumed_by = excluded.consumed_by WHERE quotes.consumed_by IS NULL/,
    );
    expect(write).toMatch(/INSERT INTO intents .* INSERT INTO orders/);
    expect((await app.rest('GET', `/orders/${created.body.result.order_id}`)).body.result).toEqual(created.body.result);
    // A replay: the statement finds the quote consumed, then the stored quote and order are read.
    statements.length = 0;
    const replay = await app.rest(
      'POST',
      '/orders',
      orderBody(quote, { commitment_hash: created.body.result.source_intent.commitment_hash }),
    );
    expect(replay.status).toBe(200);
    expect(replay.body.result).toEqual(created.body.result);
    expect(statements.findIndex((sql) => /^SELECT .* FROM quotes WHERE id = \$1$/.test(sql))).toBeGreaterThan(0);
  });

  it('consumes a quote stored before quote ids were signed, read from its table first', async ({ apps }) => {
    const statements: string[] = [];
    const app = await apps({ freshDatabase: true, onQuery: (sql) => statements.push(sql) });
    const signed = await findQuote(app.runtime.deps, (await makeQuote(app)).quote_id);
    // The same terms under an id of the old kind (q_ and 24 random characters), stored unconsumed.
    const legacy = await app.db.prisma.quote.create({
      data: { ...signed, id: `q_${randomBytes(18).toString('base64url')}`, solver: signed.solver ?? {} },
    });
    statements.length = 0;
    const quote = await makeQuote(app);
    const created = await app.rest('POST', '/orders', orderBody({ ...quote, quote_id: legacy.id }));
    expect(created.status).toBe(201);
    expect(statements).toHaveLength(2);
    expect(statements[0]).toMatch(/^SELECT .* FROM quotes WHERE id = \$1$/);
    expect(statements[1]!.trim()).toMatch(/^WITH consumed AS/);
    expect((await app.db.prisma.quote.findUniqueOrThrow({ where: { id: legacy.id } })).consumedBy).toBe(created.body.result.order_id);
    // Consumed once: a different body on it now is a 409.
    const again = await app.rest('POST', '/orders', orderBody({ ...quote, quote_id: legacy.id }, { user_id: 'someone-else' }));
    expect(again.status).toBe(409);
  });

  it('answers 409 for a quote another instance consumed, and writes no order', async ({ t }) => {
    const quote = await makeQuote(t);
    // Consumed past this instance, by an order it never saw: the quote is stored with its consumer.
    const stored = await findQuote(t.runtime.deps, quote.quote_id);
    await t.db.prisma.quote.create({ data: { ...stored, solver: stored.solver ?? {}, consumedBy: 'f'.repeat(64) } });
    const reply = await t.rest('POST', '/orders', orderBody(quote));
    expect(reply.status).toBe(409);
    expect(reply.body).toEqual({ status: 'Error', result: expect.stringContaining('quote_id') });
    expect(await t.db.prisma.order.count({ where: { quoteId: quote.quote_id } })).toBe(0);
  });
});
