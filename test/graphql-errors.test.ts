import { Writable } from 'node:stream';
import { describe, expect } from 'vitest';
import { createLogger } from '../src/logger.ts';
import { it } from './support/app.ts';

const lines: { level: number; msg: string; [field: string]: unknown }[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    lines.push(JSON.parse(String(chunk)));
    done();
  },
});

const CREATE_QUOTE = 'mutation ($i: CreateQuoteInput!) { createQuote(input: $i) { quoteId } }';
const ORDERS_FROM = 'query ($f: OrderFilter) { orders(filter: $f) { total } }';

/** A client's mistakes are BAD_REQUEST in the client's own terms, and logged as what they are: not our errors. */
it.override('appOptions', { logger: createLogger('info', sink) });

describe('GraphQL client errors', () => {
  it.for<[string, string, Record<string, unknown>, string | RegExp]>([
    ['a wrong type', 'query ($id: String!) { order(orderId: $id) { orderId } }', { id: 5 }, /^Variable "\$id" got invalid value 5/],
    [
      'a missing variable',
      'query ($id: String!) { order(orderId: $id) { orderId } }',
      {},
      /^Variable "\$id" of required type "String!" was not provided/,
    ],
    [
      'a missing field',
      CREATE_QUOTE,
      { i: { source: { asset: 'bitcoin:btc' }, destination: { asset: 'ethereum:wbtc' } } },
      /^Variable "\$i" got invalid value .* at "i\.source"; Field "amount" of required type "String!" was not provided/,
    ],
    [
      'a bad DateTime',
      ORDERS_FROM,
      { f: { from: 'yesterday' } },
      /^Variable "\$f" got invalid value "yesterday" at "f\.from"; DateTime cannot represent/,
    ],
  ])('answers %s in variables with BAD_REQUEST naming the variable and field', async ([_what, query, variables, message], { t }) => {
    const reply = await t.gql(query, variables);
    expect(reply.errors).toHaveLength(1);
    expect(reply.errors![0]!.extensions?.code).toBe('BAD_REQUEST');
    expect(reply.errors![0]!.message).toMatch(message);
  });

  it.for<[string, Record<string, unknown>, string | RegExp]>([
    [
      'query ($f: OrderFilter) { orders(filter: $f) { total } }',
      { f: { sourceChain: 'mars' } },
      'filter.sourceChain must be a listed chain id',
    ],
    [
      'query ($f: OrderFilter) { orders(filter: $f) { total } }',
      { f: { destChain: 'mars' } },
      'filter.destChain must be a listed chain id',
    ],
    ['query { ordersByUser(userId: "") { total } }', {}, 'userId must not be empty'],
  ])('names a refused argument as GraphQL spells it: %s', async ([query, variables, message], { t }) => {
    const reply = await t.gql(query, variables);
    expect(reply.errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
    expect(reply.errors?.[0]?.message).toContain(message);
  });

  it('answers a cursor it never issued with BAD_REQUEST', async ({ t }) => {
    const reply = await t.gql('query ($c: String) { ordersConnection(first: 2, after: $c) { edges { cursor } } }', { c: 'garbage' });
    expect(reply.errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
    expect(reply.errors?.[0]?.message).toMatch(/^after and before must be cursors this API returned/);
  });

  it("logs client errors at info, with the client's text in a field and never in the message", async ({ t }) => {
    lines.length = 0;
    const hostile = 'yesterday\n{"level":60,"msg":"forged"}';
    await t.gql(ORDERS_FROM, { f: { from: hostile } });
    await t.gql(CREATE_QUOTE, {
      i: { source: { asset: 'bitcoin:btc', amount: `1.5${hostile}` }, destination: { asset: 'ethereum:wbtc' } },
    });
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter((l) => l.level >= 40)).toEqual([]);
    expect(lines.some((l) => l.msg === 'client error' && l.code === 'BAD_REQUEST')).toBe(true);
    for (const line of lines) expect(line.msg).not.toContain('yesterday');
  });
});
