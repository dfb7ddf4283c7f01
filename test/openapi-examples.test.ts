import { describe, expect } from 'vitest';
import { openApiDocument } from '../src/rest/api-docs.ts';
import { it, WATCHER_KEY, type Json, type TestApp } from './support/app.ts';

/**
 * Every example in /openapi.json is something the API accepts: /docs shows them to be copied, and a client
 * generator puts them in its samples. Each request-body example is sent as it is, but for the ids of what an
 * earlier example created (an example cannot know the id the server will give), and each query parameter's
 * example is sent on its own.
 */

const API_KEY = 'example-key';
it.override('appOptions', { env: { API_KEYS: API_KEY } });

interface Operation {
  operationId: string;
  parameters?: { name: string; in: string; schema?: { examples?: unknown[] } }[];
  requestBody?: { content: Record<string, { example?: Json }> };
  security?: Record<string, unknown>[];
}

const document = openApiDocument() as { paths: Record<string, Record<string, Operation>> };
const operations = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, operation]) => ({ path, method: method.toUpperCase(), operation })),
);

/** What the examples sent so far created: later examples refer to it. */
interface Created {
  quote?: Json;
  order?: Json;
  endpoint?: Json;
}

/**
 * The examples that refer to something another example creates, in the order that creates it: the path's
 * parameters and the body's ids each needs. An example not listed here refers to nothing.
 */
const FLOW: Record<string, (created: Created) => { path?: Record<string, string>; ids?: Record<string, string> }> = {
  createQuote: () => ({}),
  createOrder: (c) => ({ ids: { quote_id: c.quote.quote_id } }),
  // The destination escrow appears (the example event, a create), so the relayer can claim it.
  recordEscrowEvent: (c) => ({ path: { swap_id: c.order.destination_intent.swap_id } }),
  submitClaim: (c) => ({ ids: { order_id: c.order.order_id } }),
  createWebhookEndpoint: () => ({}),
  rotateWebhookSecret: (c) => ({ path: { id: c.endpoint.id } }),
};

function authorization(operation: Operation): Record<string, string> {
  const schemes = (operation.security ?? []).flatMap((s) => Object.keys(s));
  if (schemes.includes('watcherKey')) return { authorization: `Bearer ${WATCHER_KEY}` };
  if (schemes.includes('apiKey')) return { authorization: `Bearer ${API_KEY}` };
  return {};
}

function remember(created: Created, operationId: string, result: Json) {
  if (operationId === 'createQuote') created.quote = result;
  if (operationId === 'createOrder') created.order = result;
  if (operationId === 'createWebhookEndpoint') created.endpoint = result;
}

async function send(t: TestApp, method: string, path: string, operation: Operation, body?: unknown) {
  const reply = await t.rest(method, path, body, authorization(operation));
  return { ...reply, ok: reply.status >= 200 && reply.status < 300 };
}

describe('the examples in /openapi.json', () => {
  // The app (and its database) is made here, under the hook's longer timeout, not in the first test.
  it.beforeAll(async ({ t }) => {
    expect(t.app).toBeDefined();
  });
  const withBody = operations.filter((o) => o.operation.requestBody?.content['application/json']?.example !== undefined);

  it('has a body example for every operation that takes a body, each of them in the flow that fills its ids', () => {
    expect(withBody.length).toBeGreaterThan(0);
    for (const { operation } of withBody) expect(Object.keys(FLOW), operation.operationId).toContain(operation.operationId);
  });

  it('accepts every request-body example', async ({ t }) => {
    const created: Created = {};
    const byId = new Map(withBody.map((o) => [o.operation.operationId, o]));
    for (const [operationId, fill] of Object.entries(FLOW)) {
      const entry = byId.get(operationId);
      expect(entry, `${operationId} has an example`).toBeDefined();
      const { path: params = {}, ids = {} } = fill(created);
      const path = entry!.path.replace(/\{(\w+)\}/g, (_, name: string) => {
        expect(params[name], `${operationId}: the {${name}} an earlier example created`).toBeDefined();
        return encodeURIComponent(params[name]!);
      });
      const example = entry!.operation.requestBody!.content['application/json']!.example;
      const reply = await send(t, entry!.method, path, entry!.operation, { ...example, ...ids });
      expect(reply.ok, `${entry!.method} ${path} with its example: ${reply.status} ${JSON.stringify(reply.body)}`).toBe(true);
      remember(created, operationId, reply.body.result);
    }
  });

  it('accepts every query parameter example, on its own', async ({ t }) => {
    let sent = 0;
    for (const { path, method, operation } of operations) {
      if (path.includes('{')) continue;
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in !== 'query') continue;
        for (const example of parameter.schema?.examples ?? []) {
          const url = `${path}?${new URLSearchParams({ [parameter.name]: String(example) })}`;
          const reply = await send(t, method, url, operation);
          expect(reply.ok, `${method} ${url}: ${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}`).toBe(true);
          sent++;
        }
      }
    }
    expect(sent).toBeGreaterThan(0);
  });
});
