import { randomBytes } from 'node:crypto';
import { describe, expect } from 'vitest';
import { QuoteConsumedError, QuoteExpiredError } from '../src/domain/errors.ts';
import { parseInput } from '../src/domain/input.ts';
import { createOrder, createOrderSchemaFor } from '../src/domain/orders.ts';
import { findQuote } from '../src/domain/quotes.ts';
import { loadRegistry } from '../src/domain/registry/registry.ts';
import { readQuoteId } from '../src/domain/signed-quotes.ts';
import { it } from './support/app.ts';
import { makeQuote, orderBody } from './support/fixtures.ts';

it.override('appOptions', { env: { QUOTE_TTL_SECONDS: '90' } });

describe('registry', () => {
  it('lists chains and assets with the contract fields', async ({ t }) => {
    const chains = await t.rest('GET', '/chains');
    expect(chains.status).toBe(200);
    const ids = chains.body.result.map((c: { id: string }) => c.id);
    for (const id of ['ethereum', 'arbitrum', 'base', 'avalanche', 'bitcoin', 'bitcoin_testnet']) expect(ids).toContain(id);
    expect(chains.body.result.find((c: { id: string }) => c.id === 'bitcoin')).toMatchObject({
      kind: 'bitcoin',
      network: 'mainnet',
    });
    const assets = await t.rest('GET', '/assets');
    const wbtc = assets.body.result.find((a: { id: string }) => a.id === 'ethereum:wbtc');
    expect(wbtc).toMatchObject({ chain: 'ethereum', symbol: 'WBTC', decimals: 8 });
    expect(typeof wbtc.min_amount).toBe('string');
    expect(wbtc.price_usd).toMatch(/^\d+(\.\d+)?$/);
  });
});

describe('POST /quotes', () => {
  it('prices a quote exactly, rounding down, with the configured lifetime', async ({ t }) => {
    const assets = (await t.rest('GET', '/assets')).body.result as { id: string; price_usd: string; decimals: number }[];
    const btc = assets.find((a) => a.id === 'bitcoin:btc')!;
    const usdc = assets.find((a) => a.id === 'ethereum:usdc')!;
    const reply = await t.rest('POST', '/quotes', {
      source: { asset: 'bitcoin:btc', amount: '123456789' },
      destination: { asset: 'ethereum:usdc' },
    });
    expect(reply.status).toBe(201);
    const quote = reply.body.result;
    expect(quote.quote_id).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(quote.source).toEqual({ asset: 'bitcoin:btc', amount: '123456789' });
    expect(quote.source_token_price).toBe(btc.price_usd);
    expect(quote.dest_token_price).toBe(usdc.price_usd);
    // Independent exact computation with scaled bigints.
    const scale = (s: string) => {
      const [whole, frac = ''] = s.split('.');
      return { n: BigInt(whole! + frac), d: 10n ** BigInt(frac.length) };
    };
    const sp = scale(btc.price_usd);
    const dp = scale(usdc.price_usd);
    const expected =
      (123456789n * sp.n * dp.d * 10n ** BigInt(usdc.decimals) * BigInt(10000 - quote.fee_bips)) /
      (sp.d * dp.n * 10n ** BigInt(btc.decimals) * 10000n);
    expect(quote.destination).toEqual({ asset: 'ethereum:usdc', amount: expected.toString() });
    expect(Date.parse(quote.expires_at) - Date.parse(quote.created_at)).toBe(90_000);
    expect(quote.solver.bitcoin).toBeTruthy();
    expect(quote.solver.ethereum).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(quote.consumed_by).toBeNull();

    const read = await t.rest('GET', `/quotes/${quote.quote_id}`);
    expect(read.body.result).toEqual(quote);
  });

  it.for<[Record<string, unknown>, number, string]>([
    [{ destination: { asset: 'ethereum:usdc' } }, 400, 'source must be an object'],
    [{ source: { asset: 'bitcoin:btc', amount: 1 }, destination: { asset: 'ethereum:usdc' } }, 400, 'source.amount'],
    [{ source: { asset: 'bitcoin:btc' }, destination: { asset: 'ethereum:usdc' } }, 400, 'source.amount is required'],
    [{ source: { asset: 'bitcoin:btc', amount: '1' } }, 400, 'destination must be an object'],
    [{ source: { asset: 'btc', amount: '100000' }, destination: { asset: 'ethereum:usdc' } }, 400, 'source.asset'],
    [{ source: { asset: 'bitcoin:doge', amount: '100000' }, destination: { asset: 'ethereum:usdc' } }, 422, 'not a listed asset'],
    [{ source: { asset: 'bitcoin:btc', amount: '100000' }, destination: { asset: 'bitcoin:btc' } }, 422, 'must differ'],
    [{ source: { asset: 'bitcoin:btc', amount: '100000' }, destination: { asset: 'bitcoin_testnet:btc' } }, 422, 'mainnet'],
    [{ source: { asset: 'bitcoin:btc', amount: '1' }, destination: { asset: 'ethereum:usdc' } }, 422, 'between'],
  ])('refuses %j with %i', async ([body, status, message], { t }) => {
    const reply = await t.rest('POST', '/quotes', body);
    expect(reply.status).toBe(status);
    expect(reply.body.status).toBe('Error');
    expect(reply.body.result).toContain(message);
  });

  it('404s an unknown quote, including ids that cannot exist', async ({ t }) => {
    expect((await t.rest('GET', '/quotes/q_nope')).status).toBe(404);
    expect((await t.rest('GET', '/quotes/%E2%9C%93')).status).toBe(404);
  });

  it('is the same resolver in GraphQL', async ({ t }) => {
    const reply = await t.gql(
      `mutation { createQuote(input: { source: { asset: "ethereum:wbtc", amount: "100000" }, destination: { asset: "arbitrum:wbtc" } }) { quoteId destination { amount } } }`,
    );
    expect(reply.errors).toBeUndefined();
    const { quoteId } = reply.data.createQuote;
    const read = await t.gql(`query ($id: String!) { quote(quoteId: $id) { quoteId source { amount } } }`, { id: quoteId });
    expect(read.data.quote).toEqual({ quoteId, source: { amount: '100000' } });
    const missing = await t.gql(`{ quote(quoteId: "q_missing") { quoteId } }`);
    expect(missing.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('stores nothing: the id carries the quote, signed, and two quotes for the same request differ', async ({ t }) => {
    const before = await t.db.prisma.quote.count();
    const [one, two] = [await makeQuote(t), await makeQuote(t)];
    expect(await t.db.prisma.quote.count()).toBe(before);
    expect(one.quote_id).not.toBe(two.quote_id);
    const terms = readQuoteId(one.quote_id, await t.db.rows.signingKey());
    expect(terms).toMatchObject({ sourceAsset: 'bitcoin:btc', sourceAmount: 10000000n, destAmount: BigInt(one.destination.amount) });
    // Read back from the id alone, as it was answered.
    expect((await t.rest('GET', `/quotes/${one.quote_id}`)).body.result).toEqual(one);
  });
});

describe('signed quote ids', () => {
  /** The id with one of its characters changed to another base64url character. */
  const altered = (id: string, at: number) => {
    const c = id[at] === 'A' ? 'B' : 'A';
    return id.slice(0, at) + c + id.slice(at + 1);
  };

  it('404s an id altered anywhere, on a read and on an order', async ({ t }) => {
    const quote = await makeQuote(t);
    const id = quote.quote_id as string;
    // Every seventh position after the prefix, through the nonce, the terms and the signature.
    for (let at = 2; at < id.length; at += 7) {
      expect((await t.rest('GET', `/quotes/${altered(id, at)}`)).status).toBe(404);
    }
    const order = await t.rest('POST', '/orders', orderBody({ ...quote, quote_id: altered(id, id.length - 3) }));
    expect(order.status).toBe(404);
  });

  it('refuses another spelling of the same bytes: an order could not consume one quote twice under two ids', async ({ t }) => {
    // base64url's last character holds spare bits when the length is not a multiple of three bytes: two
    // characters can then decode to the same bytes. Find a quote whose id has spare bits.
    let quote = await makeQuote(t);
    for (let i = 0; ((quote.quote_id as string).length - 2) % 4 === 0 && i < 40; i++) {
      quote = await makeQuote(t, { amount: String(10_000_000 + 2 ** (8 + i)) });
    }
    const id = quote.quote_id as string;
    expect((id.length - 2) % 4).not.toBe(0);
    const last = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const twin = [...last]
      .map((c) => id.slice(0, -1) + c)
      .find((other) => other !== id && Buffer.from(other.slice(2), 'base64url').equals(Buffer.from(id.slice(2), 'base64url')))!;
    expect(twin).toBeDefined();
    expect((await t.rest('GET', `/quotes/${twin}`)).status).toBe(404);
    expect((await t.rest('POST', '/orders', orderBody({ ...quote, quote_id: twin }))).status).toBe(404);
    expect((await t.rest('POST', '/orders', orderBody(quote))).status).toBe(201);
  });

  it('refuses a quote another database signed (another key)', async ({ t }) => {
    const quote = await makeQuote(t);
    // Another deployment's key.
    const elsewhere = { ...t.runtime.deps, quotes: { ...t.db.rows, signingKey: async () => Buffer.from('ab'.repeat(32), 'hex') } };
    await expect(findQuote(elsewhere, quote.quote_id)).rejects.toThrow('not found');
  });

  it('410s a quote made for solver addresses the registry no longer lists, unless an order consumed it', async ({ t }) => {
    const [taken, open] = [await makeQuote(t), await makeQuote(t)];
    expect((await t.rest('POST', '/orders', orderBody(taken))).status).toBe(201);
    const registry = loadRegistry();
    const moved = {
      ...registry,
      asset: (id: string) => registry.asset(id),
      chain: (id: string) => {
        const chain = registry.chain(id);
        return chain && id === 'ethereum' ? { ...chain, solver: '0x000000000000000000000000000000000000dEaD' } : chain;
      },
    };
    const deps = { ...t.runtime.deps, registry: moved };
    await expect(findQuote(deps, open.quote_id)).rejects.toMatchObject({ message: expect.stringContaining('no longer lists') });
    // The consumed one is read as stored, with the addresses it was made for.
    expect((await findQuote(deps, taken.quote_id)).solver).toEqual(taken.solver);
    // An order on each, as the registry now stands: the open quote is refused, the consumed one is a 409.
    const command = (quote: typeof open, userId: string) => {
      const body = orderBody(quote, {}, userId);
      return parseInput(createOrderSchemaFor(moved), {
        userId,
        quoteId: body.quote_id,
        source: body.source,
        destination: body.destination,
        commitmentHash: body.commitment_hash,
      });
    };
    await expect(createOrder(deps, command(open, 'late'))).rejects.toBeInstanceOf(QuoteExpiredError);
    await expect(createOrder(deps, command(taken, 'other'))).rejects.toBeInstanceOf(QuoteConsumedError);
  });

  it('signs with QUOTE_SIGNING_KEY instead of the database key when it is set', async ({ apps }) => {
    const key = randomBytes(32);
    const app = await apps({ env: { QUOTE_SIGNING_KEY: key.toString('hex') } });
    try {
      const quote = await makeQuote(app);
      expect(readQuoteId(quote.quote_id, key)).not.toBeNull();
      expect(readQuoteId(quote.quote_id, await app.db.rows.signingKey())).toBeNull();
      expect((await app.rest('GET', `/quotes/${quote.quote_id}`)).body.result).toEqual(quote);
      expect((await app.rest('POST', '/orders', orderBody(quote))).status).toBe(201);
    } finally {
      await app.close();
    }
  });
});
