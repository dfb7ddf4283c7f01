import { describe, expect } from 'vitest';
import { GRAPHQL_LIMITS } from '../src/http/graphql-limits.ts';
import { it as appTest, type TestApp } from './support/app.ts';

/** Besides the file's app `t`, a second one in production mode, made once for the file as well. */
const it = appTest.extend('production', { scope: 'file' }, ({ apps }) => apps({ env: { NODE_ENV: 'production' } }));

const errorOf = async (query: string, app: TestApp) => (await app.gql(query)).errors?.[0]?.message ?? '';
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
  it('admits every query the product needs', async ({ t }) => {
    const full = await t.gql(`{ ${FULL_PAGE} }`);
    expect(full.errors).toBeUndefined();
    expect(await errorOf(`{ orders(limit: 100) { data { ${ORDER_FIELDS} sourceIntent { ${INTENT_FIELDS} } } } }`, t)).toBe('');
  });

  it(`depth: ${GRAPHQL_LIMITS.depth} passes, one more is refused`, async ({ t }) => {
    expect(await errorOf(nested(GRAPHQL_LIMITS.depth), t)).toBe('');
    expect(await errorOf(nested(GRAPHQL_LIMITS.depth + 1), t)).toMatch(/depth limit of 6 exceeded/);
  });

  it(`aliases: ${GRAPHQL_LIMITS.aliases} pass, one more is refused`, async ({ t }) => {
    // (armor does not count aliases of __typename)
    const aliases = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: chains { id }`).join(' ')} }`;
    expect(await errorOf(aliases(GRAPHQL_LIMITS.aliases), t)).toBe('');
    expect(await errorOf(aliases(GRAPHQL_LIMITS.aliases + 1), t)).toMatch(/Aliases limit of 15 exceeded/);
  });

  it(`directives: ${GRAPHQL_LIMITS.directives} pass, one more is refused`, async ({ t }) => {
    const directives = (n: number) => `{ ${repeat(n, '__typename @skip(if: false)')} }`;
    expect(await errorOf(directives(GRAPHQL_LIMITS.directives), t)).toBe('');
    expect(await errorOf(directives(GRAPHQL_LIMITS.directives + 1), t)).toMatch(/Directives limit of 50 exceeded/);
  });

  it(`tokens: ${GRAPHQL_LIMITS.tokens} pass, one more is refused`, async ({ t }) => {
    // 16 tokens of frame around a list of n enum values: n + 16 tokens.
    const tokens = (n: number) => `{ orders(filter: { status: [${repeat(n - 16, 'PENDING')}] }) { total } }`;
    expect(await errorOf(tokens(GRAPHQL_LIMITS.tokens), t)).toBe('');
    expect(await errorOf(tokens(GRAPHQL_LIMITS.tokens + 1), t)).toMatch(/Token limit of 1000 exceeded/);
  });

  it(`cost: ${GRAPHQL_LIMITS.cost} passes, one more is refused`, async ({ t }) => {
    // orders(limit: 100) { data { k scalars } } costs 100 (20 + 20 + k): k = 210 gives 25,000; each root scalar adds 1.
    const priced = (rootScalars: number) =>
      `{ ${repeat(rootScalars, 'a: __typename')} orders(limit: 100) { data { ${repeat(210, 'orderId')} } } }`;
    expect(await errorOf(priced(0), t)).toBe('');
    expect(await errorOf(priced(1), t)).toMatch(/cost limit of 25000 exceeded, found 25001/);
  });

  it('cost counts every list: two full pages in one request are refused, by first or by limit', async ({ t }) => {
    const FULL_OFFSET_PAGE = (field: string) => `${field}(limit: 100${field === 'ordersByUser' ? ', userId: "u"' : ''}) {
      total data { ${ORDER_FIELDS} sourceIntent { ${INTENT_FIELDS} } destinationIntent { ${INTENT_FIELDS} } } }`;
    expect(await errorOf(`{ ${FULL_OFFSET_PAGE('ordersByUser')} }`, t)).toBe('');
    expect(await errorOf(`{ a: ${FULL_PAGE} b: ${FULL_PAGE} }`, t)).toMatch(/cost limit/);
    expect(await errorOf(`{ a: ${FULL_OFFSET_PAGE('orders')} b: ${FULL_OFFSET_PAGE('orders')} }`, t)).toMatch(/cost limit/);
    expect(await errorOf(`{ a: ${FULL_OFFSET_PAGE('ordersByUser')} b: ${FULL_PAGE} }`, t)).toMatch(/cost limit/);
  });

  it('fifteen aliased 100-order pages are refused, however few fields they ask for', async ({ t }) => {
    const pages = (n: number, page: (i: number) => string) => `{ ${Array.from({ length: n }, (_, i) => `p${i}: ${page(i)}`).join(' ')} }`;
    const byLimit = (i: number) =>
      i % 2 ? 'orders(limit: 100) { data { orderId } }' : 'ordersByUser(userId: "u", limit: 100) { data { orderId } }';
    expect(await errorOf(pages(15, byLimit), t)).toMatch(/cost limit of 25000 exceeded, found 61500/);
    // A page field may read its rows whatever is selected (ordersConnection does): the size counts anyway.
    expect(
      await errorOf(
        pages(15, () => 'ordersConnection(first: 100) { pageInfo { hasNextPage } }'),
        t,
      ),
    ).toMatch(/cost limit/);
    expect(
      await errorOf(
        pages(15, () => 'orders(limit: 100) { total }'),
        t,
      ),
    ).toMatch(/cost limit of 25000 exceeded, found 31500/);
    // 100 orders with one field cost 4,100: six such pages fit, the seventh does not.
    expect(await errorOf(pages(6, byLimit), t)).toBe('');
    expect(await errorOf(pages(7, byLimit), t)).toMatch(/cost limit of 25000 exceeded, found 28700/);
    // Fifteen small pages are fine.
    expect(
      await errorOf(
        pages(15, () => 'orders(limit: 5) { data { orderId } }'),
        t,
      ),
    ).toBe('');
  });

  it('a page size given as a variable counts as the largest page, 100', async ({ t }) => {
    const pages = (n: number) =>
      `query ($n: Int) { ${Array.from({ length: n }, (_, i) => `p${i}: orders(limit: $n) { data { orderId } }`).join(' ')} }`;
    const reply = await t.gql(pages(7), { n: 1 });
    expect(reply.errors?.[0]?.message).toMatch(/cost limit of 25000 exceeded, found 28700/);
    expect((await t.gql(pages(6), { n: 1 })).errors).toBeUndefined();
  });

  it('refuses batched requests', async ({ t }) => {
    const response = await t.app.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ query: '{ __typename }' }, { query: '{ __typename }' }]),
    });
    expect(response.status).toBe(400);
  });

  it('hides field suggestions in production only', async ({ t, production }) => {
    expect(await errorOf('{ orderz { total } }', t)).toMatch(/Did you mean/);
    const hidden = await errorOf('{ orderz { total } }', production);
    expect(hidden).toMatch(/Cannot query field/);
    expect(hidden).not.toMatch(/Did you mean/);
  });
});
