import { describe, expect } from 'vitest';
import { CreateOrderSchema } from '../src/domain/orders.ts';
import { restJsonSchema } from '../src/rest/input.ts';
import { WATCHER_KEY, it } from './support/app.ts';
import { makeQuote, orderBody } from './support/fixtures.ts';

const createOrder = `mutation ($input: CreateOrderInput!) { createOrder(input: $input) { replayed } }`;

function graphqlInput(body: ReturnType<typeof orderBody>) {
  return {
    userId: body.user_id,
    quoteId: body.quote_id,
    source: body.source,
    destination: body.destination,
    commitmentHash: body.commitment_hash,
  };
}

describe('one schema per input, named as each client spells it', () => {
  it('names a field in snake_case over REST and in camelCase over GraphQL', async ({ t }) => {
    const body = orderBody(await makeQuote(t), { commitment_hash: 'not-a-hash' });
    const rest = await t.rest('POST', '/orders', body);
    expect(rest).toMatchObject({
      status: 400,
      body: { result: 'commitment_hash must be 32 bytes of hex (64 hex characters, optional 0x prefix)' },
    });
    const gql = await t.gql(createOrder, { input: graphqlInput(body) });
    expect(gql.errors?.[0]).toMatchObject({
      message: 'commitmentHash must be 32 bytes of hex (64 hex characters, optional 0x prefix)',
      extensions: { code: 'BAD_REQUEST' },
    });
  });

  it("gives a REST body GraphQL cannot even coerce the schema's message, not GraphQL's", async ({ t }) => {
    const body = orderBody(await makeQuote(t), { user_id: 42 });
    expect(await t.rest('POST', '/orders', body)).toMatchObject({ status: 400, body: { result: 'user_id must be a string' } });
    const numberAmount = await t.rest('POST', '/quotes', {
      source: { asset: 'bitcoin:btc', amount: 5 },
      destination: { asset: 'ethereum:wbtc' },
    });
    expect(numberAmount).toMatchObject({ status: 400, body: { result: 'source.amount must be a positive integer string in base units' } });
  });

  it("answers a value a GraphQL scalar cannot parse as the client's mistake (400), over REST and GraphQL", async ({ t }) => {
    const event = { kind: 'create', tx_hash: `0x${'ab'.repeat(32)}`, block_number: {}, timestamp: '2026-01-01T00:00:00Z' };
    const rest = await t.rest('POST', `/intents/${'0'.repeat(64)}/events`, event, { authorization: `Bearer ${WATCHER_KEY}` });
    expect(rest).toMatchObject({ status: 400, body: { result: 'block_number must be a non-negative integer' } });
    const gql = await t.gql(`mutation ($input: RecordEscrowEventInput!) { recordEscrowEvent(input: $input) { status } }`, {
      input: { swapId: '0'.repeat(64), kind: 'CREATE', txHash: event.tx_hash, blockNumber: {}, timestamp: event.timestamp },
    });
    expect(gql.errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
  });

  it('checks a recipient against the chain of its asset, in both spellings', async ({ t }) => {
    const body = orderBody(await makeQuote(t));
    const wrongChain = { ...body, destination: { ...body.destination, recipient: body.source.recipient } };
    const rest = await t.rest('POST', '/orders', wrongChain);
    expect(rest.status).toBe(400);
    expect(rest.body.result).toMatch(/^destination\.recipient must be a valid Ethereum address/);
    const gql = await t.gql(createOrder, { input: graphqlInput(wrongChain) });
    expect(gql.errors?.[0]?.message).toBe(rest.body.result);
  });

  it('prints the REST form of a schema for the API document: snake_case keys and the rules', () => {
    const json = restJsonSchema(CreateOrderSchema) as {
      required: string[];
      properties: Record<string, { properties?: Record<string, { pattern?: string }> }>;
    };
    expect(json.required).toEqual(['user_id', 'quote_id', 'source', 'destination', 'commitment_hash']);
    expect(json.properties.source?.properties?.amount?.pattern).toBe('^[1-9][0-9]*$');
  });
});
