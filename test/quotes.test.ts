import { describe, expect } from 'vitest';
import { it } from './support/app.ts';

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
});
