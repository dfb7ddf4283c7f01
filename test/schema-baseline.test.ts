import { readFileSync } from 'node:fs';
import { CriticalityLevel, diff } from '@graphql-inspector/core';
import { buildSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../src/rest/api-docs.ts';
import type { Json } from './support/app.ts';
import { breakingChanges, clientContract } from './support/openapi-breaking.ts';

/**
 * What clients rely on, against the committed baselines (README, Tests): a breaking change to the GraphQL
 * schema or the REST document fails here until `npx tsx test/baselines/update.ts` records it, in the same
 * change, where a reviewer sees it. Additions pass without touching the baselines.
 */

const UPDATE = 'if the break is meant, record it with `npx tsx test/baselines/update.ts` and commit the baselines with it';
const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');
const baselineSdl = read('./baselines/schema.graphql');
const baselineRest = JSON.parse(read('./baselines/openapi.json')) as ReturnType<typeof clientContract>;
const currentRest = clientContract(openApiDocument());

async function graphqlBreaks(before: string, after: string): Promise<string[]> {
  const changes = await diff(buildSchema(before), buildSchema(after));
  return changes.filter((c) => c.criticality.level === CriticalityLevel.Breaking).map((c) => `${c.path ?? ''}: ${c.message}`);
}

/** A copy of the REST baseline changed by `edit`. */
function editedRest(edit: (doc: Json) => void) {
  const copy = structuredClone(baselineRest);
  edit(copy);
  return copy;
}

describe('schema.graphql against test/baselines/schema.graphql (graphql-inspector)', () => {
  it('has no breaking change', async () => {
    expect(await graphqlBreaks(baselineSdl, read('../schema.graphql')), UPDATE).toEqual([]);
  });

  it('would fail on a removed field or a new required argument, and pass an added field', async () => {
    const removed = baselineSdl.replace('  """64 lowercase hex characters, opaque."""\n  orderId: String!\n', '');
    expect(removed).not.toBe(baselineSdl);
    expect((await graphqlBreaks(baselineSdl, removed)).join('\n')).toMatch(/orderId/);
    const added = baselineSdl.replace(/^type Query \{\n/m, 'type Query {\n  """A new field."""\n  added: Int\n');
    expect(added).not.toBe(baselineSdl);
    expect(await graphqlBreaks(baselineSdl, added)).toEqual([]);
  });
});

describe('/openapi.json against test/baselines/openapi.json', () => {
  it('has no breaking change', () => {
    expect(breakingChanges(baselineRest, currentRest), UPDATE).toEqual([]);
  });

  it('fails on what breaks a REST client', () => {
    const order = (doc: Json) => doc.paths['/orders/{order_id}'].get;
    const orderResult = (doc: Json) => order(doc).responses['200'].content['application/json'].schema.properties.result;
    const cases: [string, (doc: Json) => void, RegExp][] = [
      ['a path removed', (doc) => delete doc.paths['/orders/{order_id}'], /GET \/orders\/\{order_id\}: removed/],
      ['an operation renamed', (doc) => (order(doc).operationId = 'order'), /operationId getOrder became order/],
      [
        'a read field no longer sent',
        (doc) => orderResult(doc).required.splice(orderResult(doc).required.indexOf('status'), 1),
        /result\.status: no longer always present/,
      ],
      [
        'a read field made nullable',
        (doc) => (orderResult(doc).properties.status.type = ['string', 'null']),
        /result\.status: may now be null/,
      ],
      [
        'a field retyped',
        (doc) => (orderResult(doc).properties.status = { type: 'integer' }),
        /result\.status: type string became integer/,
      ],
      [
        'a new required query parameter',
        (doc) => doc.paths['/orders'].get.parameters.push({ name: 'cursor', in: 'query', required: true, schema: { type: 'string' } }),
        /query cursor: a new required parameter/,
      ],
      ['a query parameter removed', (doc) => doc.paths['/orders'].get.parameters.shift(), /GET \/orders query \w+: removed/],
      [
        'a body field made required',
        (doc) => doc.paths['/webhooks'].post.requestBody.content['application/json'].schema.required.push('description'),
        /POST \/webhooks body\.description: now required/,
      ],
      [
        'a request enum value dropped',
        (doc) => doc.paths['/intents/{swap_id}/events'].post.requestBody.content['application/json'].schema.properties.kind.enum.pop(),
        /body\.kind: no longer accepts/,
      ],
      ['a success status removed', (doc) => delete doc.paths['/quotes'].post.responses['201'], /POST \/quotes 201: removed/],
      ['a public read behind a key', (doc) => (doc.paths['/assets'].get.security = [{ apiKey: [] }]), /GET \/assets: now needs a key/],
    ];
    for (const [what, edit, expected] of cases) {
      expect(breakingChanges(baselineRest, editedRest(edit)).join('\n'), what).toMatch(expected);
    }
  });

  it('passes additions: a path, an optional query parameter, a response field, a request enum value, an error status', () => {
    const added = editedRest((doc) => {
      doc.paths['/orders/series'] = { get: { operationId: 'listSeries', responses: { 200: { description: 'x' } } } };
      doc.paths['/orders'].get.parameters.push({ name: 'tx_hash', in: 'query', required: false, schema: { type: 'string' } });
      const result = doc.paths['/stats'].get.responses['200'].content['application/json'].schema.properties.result;
      result.properties.series = { type: 'array', items: { type: 'object' } };
      result.required.push('series');
      doc.paths['/intents/{swap_id}/events'].post.requestBody.content['application/json'].schema.properties.kind.enum.push('refund');
      doc.paths['/assets'].get.responses['404'] = { $ref: '#/components/schemas/Error' };
    });
    expect(breakingChanges(baselineRest, added)).toEqual([]);
  });
});
