import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHQL_LIMITS } from '../src/http/graphql-limits.ts';
import { createTestApp, type TestApp } from './support/app.ts';

let t: TestApp;
let production: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  production = await createTestApp({ env: { NODE_ENV: 'production' } });
});
afterAll(async () => {
  await t.close();
  await production.close();
});

const errorOf = async (query: string, app = t) => (await app.gql(query)).errors?.[0]?.message ?? '';
const repeat = (n: number, text: string) => Array.from({ length: n }, () => text).join(' ');

/** `__type > fields > type > ofType... > name`: the one path deep enough to test depth. */
const nested = (depth: number) => {
  let inner = 'name';
  for (let i = 0; i < depth - 4; i++) inner = `ofType { ${inner} }`;
  return `{ __type(name: "Order") { fields { type { ${inner} } } } }`;
};

const ORDER_FIELDS = 'orderId userId quoteId status sourceTokenPrice destTokenPrice feeBips createdAt updatedAt';
const INTENT_FIELDS = `swapId chain asset tokenAddress creator recipient amount commitmentHash commitment cancelAfter
  registryAddress createTxHash createBlockNumber createTimestamp claimTxHash claimBlockNumber claimTimestamp
  cancelTxHash cancelBlockNumber cancelTimestamp l1Hop hopBridgeFactory hopDestBlockchainId hopRecipient hopFeeToken
  hopRelayerFee finalChain finalTokenAddress bridgeTxHash createdAt updatedAt`;
/** The heaviest query the product's clients need: a full page of 100 orders, every field. */
const FULL_PAGE = `ordersConnection(first: 100) {
  edges { cursor node { ${ORDER_FIELDS} sourceIntent { ${INTENT_FIELDS} } destinationIntent { ${INTENT_FIELDS} } } }
  pageInfo { hasNextPage endCursor } }`;

describe('GraphQL limits, checked before any resolver runs', () => {
  it('admits every query the product needs', async () => {
    const full = await t.gql(`{ ${FULL_PAGE} }`);
    expect(full.errors).toBeUndefined();
    expect(await errorOf(`{ orders(limit: 100) { data { ${ORDER_FIELDS} sourceIntent { ${INTENT_FIELDS} } } } }`)).toBe('');
  });

  it(`depth: ${GRAPHQL_LIMITS.depth} passes, one more is refused`, async () => {
    expect(await errorOf(nested(GRAPHQL_LIMITS.depth))).toBe('');
    expect(await errorOf(nested(GRAPHQL_LIMITS.depth + 1))).toMatch(/depth limit of 6 exceeded/);
  });

  it(`aliases: ${GRAPHQL_LIMITS.aliases} pass, one more is refused`, async () => {
    // (armor does not count aliases of __typename)
    const aliases = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: chains { id }`).join(' ')} }`;
    expect(await errorOf(aliases(GRAPHQL_LIMITS.aliases))).toBe('');
    expect(await errorOf(aliases(GRAPHQL_LIMITS.aliases + 1))).toMatch(/Aliases limit of 15 exceeded/);
  });

  it(`directives: ${GRAPHQL_LIMITS.directives} pass, one more is refused`, async () => {
    const directives = (n: number) => `{ ${repeat(n, '__typename @skip(if: false)')} }`;
    expect(await errorOf(directives(GRAPHQL_LIMITS.directives))).toBe('');
    expect(await errorOf(directives(GRAPHQL_LIMITS.directives + 1))).toMatch(/Directives limit of 50 exceeded/);
  });

  it(`tokens: ${GRAPHQL_LIMITS.tokens} pass, one more is refused`, async () => {
    // 16 tokens of frame around a list of n enum values: n + 16 tokens.
    const tokens = (n: number) => `{ orders(filter: { status: [${repeat(n - 16, 'PENDING')}] }) { total } }`;
    expect(await errorOf(tokens(GRAPHQL_LIMITS.tokens))).toBe('');
    expect(await errorOf(tokens(GRAPHQL_LIMITS.tokens + 1))).toMatch(/Token limit of 1000 exceeded/);
  });

  it(`cost: ${GRAPHQL_LIMITS.cost} passes, one more is refused; two full pages in one request are refused`, async () => {
    // edges { node { k scalars } } under first: 80 costs (2 + 1.5 (2 + 1.5 (2 + 1.5k))) x 80 = 760 + 270k:
    // k = 182 gives 49,900, and each root scalar adds 1.
    const priced = (rootScalars: number) =>
      `{ ${repeat(rootScalars, 'a: __typename')} ordersConnection(first: 80) { edges { node { ${repeat(182, 'orderId')} } } } }`;
    expect(await errorOf(priced(100))).toBe('');
    expect(await errorOf(priced(101))).toMatch(/Cost limit of 50000 exceeded, found 50001/);
    expect(await errorOf(`{ a: ${FULL_PAGE} b: ${FULL_PAGE} }`)).toMatch(/Cost limit/);
  });

  it('refuses batched requests', async () => {
    const response = await t.app.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ query: '{ __typename }' }, { query: '{ __typename }' }]),
    });
    expect(response.status).toBe(400);
  });

  it('hides field suggestions in production only', async () => {
    expect(await errorOf('{ orderz { total } }')).toMatch(/Did you mean/);
    const hidden = await errorOf('{ orderz { total } }', production);
    expect(hidden).toMatch(/Cannot query field/);
    expect(hidden).not.toMatch(/Did you mean/);
  });

  it('refuses a GET query without the CSRF header, serves it with one', async () => {
    const url = `http://test/graphql?query=${encodeURIComponent('{ __typename }')}`;
    expect((await t.app.fetch(url, { headers: { accept: 'application/json' } })).status).toBe(403);
    const ok = await t.app.fetch(url, { headers: { accept: 'application/json', 'x-graphql-yoga-csrf': '1' } });
    expect(await ok.json()).toEqual({ data: { __typename: 'Query' } });
  });
});
