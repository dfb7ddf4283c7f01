import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApolloClient, gql as apolloGql, HttpLink, InMemoryCache } from '@apollo/client';
import { cacheExchange, Client as UrqlClient, fetchExchange } from '@urql/core';
import { GraphQLClient } from 'graphql-request';
import { Network, type RequestParameters, type Variables } from 'relay-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type Json, type TestApp } from './support/app.ts';
import { makeOrder } from './support/fixtures.ts';

/**
 * The GraphQL clients integrators pick, each in the configuration its documentation starts with, against
 * the app on a real port: a query (urql sends it as GET) and a mutation (POST) both answer.
 */
const ORDER = 'query OrderById($id: String!) { order(orderId: $id) { orderId status } }';
const CREATE_QUOTE = `mutation NewQuote {
  createQuote(input: { source: { asset: "bitcoin:btc", amount: "10000000" }, destination: { asset: "ethereum:wbtc" } }) { quoteId }
}`;

describe('default GraphQL clients', () => {
  let t: TestApp;
  let server: Server;
  let url: string;
  let orderId: string;
  const methods: string[] = [];

  beforeAll(async () => {
    t = await createTestApp();
    server = createServer((req, res) => {
      methods.push(`${req.method} ${req.url?.split('?')[0]}`);
      void t.app(req, res);
    }).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
    orderId = (await makeOrder(t, {}, 'client-user')).order_id;
  }, 60_000);

  afterAll(async () => {
    server?.close();
    await t?.close();
  });

  it('urql: queries over GET without a CSRF header, mutations over POST', async () => {
    const client = new UrqlClient({ url, exchanges: [cacheExchange, fetchExchange] });
    methods.length = 0;
    const query = await client.query(ORDER, { id: orderId }).toPromise();
    expect(query.error).toBeUndefined();
    expect(query.data.order).toMatchObject({ orderId, status: 'PENDING' });
    expect(methods).toEqual(['GET /graphql']);
    const mutation = await client.mutation(CREATE_QUOTE, {}).toPromise();
    expect(mutation.error).toBeUndefined();
    expect(mutation.data.createQuote.quoteId).toMatch(/\S/);
  });

  it('Apollo Client', async () => {
    const client = new ApolloClient({ link: new HttpLink({ uri: url }), cache: new InMemoryCache() });
    const query = await client.query<Json>({ query: apolloGql(ORDER), variables: { id: orderId } });
    expect(query.data.order).toMatchObject({ orderId, status: 'PENDING' });
    const mutation = await client.mutate<Json>({ mutation: apolloGql(CREATE_QUOTE) });
    expect(mutation.data.createQuote.quoteId).toMatch(/\S/);
  });

  it('graphql-request', async () => {
    const client = new GraphQLClient(url);
    expect(await client.request<Json>(ORDER, { id: orderId })).toEqual({ order: { orderId, status: 'PENDING' } });
    expect((await client.request<Json>(CREATE_QUOTE)).createQuote.quoteId).toMatch(/\S/);
  });

  it("Relay's network layer with the fetch function of its documentation", async () => {
    const fetchGraphQL = async (request: RequestParameters, variables: Variables) => {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ query: request.text, variables }),
      });
      return response.json();
    };
    const network = Network.create(fetchGraphQL);
    const run = (name: string, text: string, operationKind: 'query' | 'mutation', variables: Variables) =>
      network
        .execute({ id: null, cacheID: name, name, operationKind, text, metadata: {}, providedVariables: undefined }, variables, {})
        .toPromise() as Promise<Json>;
    expect((await run('OrderById', ORDER, 'query', { id: orderId })).data.order).toEqual({ orderId, status: 'PENDING' });
    expect((await run('NewQuote', CREATE_QUOTE, 'mutation', {})).data.createQuote.quoteId).toMatch(/\S/);
  });

  it('refuses a mutation over GET, and names the header a form post needs', async () => {
    const get = await fetch(`${url}?query=${encodeURIComponent(CREATE_QUOTE)}`, { headers: { accept: 'application/json' } });
    expect(get.status).toBe(405);
    const form = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `query=${encodeURIComponent(CREATE_QUOTE)}`,
    });
    expect(form.status).toBe(403);
    expect((await form.json()).errors[0].message).toContain('x-graphql-yoga-csrf');
  });
});
