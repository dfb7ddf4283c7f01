import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect } from 'vitest';
import { openApiPath } from '../src/rest/openapi/operations.ts';
import { routes } from '../src/rest/routes.ts';
import { it } from './support/app.ts';

describe('GET /openapi.json', () => {
  // biome-ignore lint/suspicious/noExplicitAny: the parsed document is walked freely here; the validator checks its shape
  let spec: any;
  it.beforeAll(async ({ t }) => {
    const response = await t.app.fetch('http://test/openapi.json');
    expect(response.headers.get('content-type')).toContain('application/json');
    spec = await response.json();
  });

  it('is a valid OpenAPI 3.1 document (an independent validator)', async () => {
    const result = await new Validator().validate(spec);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(spec.openapi).toBe('3.1.0');
  });

  it('has every route of the route table, with summaries, responses and an error envelope', () => {
    for (const route of routes) {
      const operation = spec.paths[openApiPath(route.path)]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      expect(operation.summary).toBeTruthy();
      const statuses = Object.keys(operation.responses);
      expect(statuses.some((s) => s.startsWith('2'))).toBe(true);
      expect(operation.responses['500'].content['application/json'].schema.$ref).toBe('#/components/schemas/Error');
      if (route.body) expect(operation.requestBody.content['application/json'].example).toBeDefined();
    }
    const documented = Object.entries(spec.paths).flatMap(([path, ops]) => Object.keys(ops as object).map((m) => `${m} ${path}`));
    expect(documented.length).toBe(routes.length + 3); // and /health, /ready, /relayer/health
  });

  it('describes the REST shapes from the GraphQL schema: snake_case names, lowercase statuses, descriptions', () => {
    const order = spec.paths['/orders/{order_id}'].get;
    expect(order.parameters).toEqual([expect.objectContaining({ name: 'order_id', in: 'path', required: true })]);
    const result = order.responses['200'].content['application/json'].schema.properties.result;
    expect(result.properties.status.enum).toContain('destination_claimed');
    expect(result.properties.source_intent.properties.swap_id.description).toBeTruthy();
    expect(result.properties.source_intent.properties.commitment.type).toEqual(['string', 'null']);
    const list = spec.paths['/orders'].get.parameters.map((p: { name: string }) => p.name);
    expect(list).toEqual(expect.arrayContaining(['page', 'limit', 'status', 'source_chain', 'dest_chain', 'asset', 'from', 'to']));
    const body = spec.paths['/quotes'].post.requestBody.content['application/json'].schema;
    expect(body.required.sort()).toEqual(['destination', 'source']);
    expect(body.properties.source.required.sort()).toEqual(['amount', 'asset']);
    // The path's swap id is not asked again in the body.
    const event = spec.paths['/intents/{swap_id}/events'].post.requestBody.content['application/json'].schema;
    expect(Object.keys(event.properties)).not.toContain('swap_id');
    expect(event.properties.kind.enum.sort()).toEqual(['cancel', 'claim', 'create']);
  });

  it('checks each response the suite receives: a body off the schema fails the call', async ({ t }) => {
    // The support's REST helper validates every answer; one that does not match must throw.
    const { checkAgainstOpenApi } = await import('./support/openapi.ts');
    expect(() => checkAgainstOpenApi('GET', '/assets', 200, 'application/json', { status: 'Success', result: [{ id: 1 }] })).toThrow(
      /OpenAPI/,
    );
    expect(() => checkAgainstOpenApi('GET', '/assets', 418, 'application/json', { status: 'Error', result: 'x' })).toThrow(/does not list/);
    const assets = await t.rest('GET', '/assets');
    expect(assets.status).toBe(200);
  });
});
