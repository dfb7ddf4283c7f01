import type { GraphQLSchema } from 'graphql';
import type { Route } from '../route.ts';
import { type JsonSchema, envelope, ERROR_ENVELOPE } from './json-schema.ts';
import { openApiPath, routeOperation } from './operations.ts';

/**
 * The OpenAPI 3.1 document of the REST layer, built from what the routes run (README, REST and GraphQL):
 * the route table gives paths, methods, summaries and status codes; each route's fixed GraphQL document gives
 * the parameters (its variables), the request body (its `input` type, in REST spelling) and the response (its
 * selection, aliases being the REST names), with the schema's descriptions. Nothing here repeats a field.
 */

const text = (description: string, example: string) => ({
  description,
  content: { 'text/plain': { schema: { type: 'string' }, example } },
});

/** Paths the REST plugin answers outside the route table. */
const FIXED_PATHS: Record<string, JsonSchema> = {
  '/health': {
    get: {
      operationId: 'getHealth',
      summary: 'Liveness',
      description: 'The process serves HTTP. No dependency is checked.',
      tags: ['Operations'],
      security: [],
      responses: { 200: text('Always the text Online.', 'Online') },
    },
  },
  '/ready': {
    get: {
      operationId: 'getReadiness',
      summary: 'Readiness',
      description: 'Each dependency answers within 2 s.',
      tags: ['Operations'],
      security: [],
      responses: {
        200: {
          description: 'Every dependency answered: `ok` for each (database, and redis when configured).',
          content: { 'application/json': { schema: envelope({ type: 'object', additionalProperties: { type: 'string' } }) } },
        },
        503: {
          description: 'Not ready: the message names what is unreachable.',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      },
    },
  },
  '/relayer/health': {
    get: {
      operationId: 'getRelayerHealth',
      summary: 'Relayer health',
      description: 'JSON without the envelope: the worker, the queue and each chain adapter.',
      tags: ['Relayer'],
      security: [],
      responses: {
        200: {
          description: 'degraded when the worker is stopped, a queued claim waits too long, or a chain adapter is unhealthy.',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  status: { type: 'string', enum: ['ok', 'degraded'] },
                  worker: { type: 'string', enum: ['running', 'stopped'] },
                  queue_depth: { type: 'integer', description: 'Claims queued or submitted, not yet confirmed.' },
                  chains: { type: 'object', description: 'Each chain adapter, by chain id.', additionalProperties: { type: 'object' } },
                },
                required: ['status', 'worker', 'queue_depth', 'chains'],
              },
            },
          },
        },
      },
    },
  },
};

/** The whole document. Built once per schema; served at /openapi.json. */
export function buildOpenApi(schema: GraphQLSchema, routes: readonly Route[], pkg: { version: string; license?: string }): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    (paths[path] ??= {})[route.method.toLowerCase()] = routeOperation(schema, route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Order book gateway: REST',
      version: pkg.version,
      // package.json's licence (an SPDX identifier); none, or npm's UNLICENSED, means no licence is granted.
      license:
        !pkg.license || pkg.license === 'UNLICENSED'
          ? { name: 'Proprietary: no licence granted', identifier: 'LicenseRef-Proprietary' }
          : { name: pkg.license, identifier: pkg.license },
      description:
        'A cross-chain swap order book. Every answer but the health checks is an envelope: `{"status":"Success","result":...}` or `{"status":"Error","result":"<message>"}`. Amounts are integer strings in base units; times are UTC `YYYY-MM-DDTHH:MM:SSZ`. The same operations, and subscriptions, are in GraphQL at /graphql.',
    },
    servers: [{ url: '/' }],
    tags: [
      { name: 'Quotes', description: 'Price a swap; a quote is consumed by exactly one order.' },
      { name: 'Orders', description: 'Create and read orders.' },
      { name: 'Statistics', description: 'Volumes and counts over all time, the last 24 hours and the last 7 days.' },
      { name: 'Webhooks', description: 'Endpoints an API key registers to be told when an order or a claim changes.' },
      { name: 'Relayer', description: 'Claims the relayer makes on the destination chain for users.' },
      { name: 'Ingestion', description: 'Escrow events from chain watchers.' },
      { name: 'Registry', description: 'Chains and assets.' },
      { name: 'Operations', description: 'Health and readiness.' },
    ],
    paths: { ...paths, ...FIXED_PATHS },
    components: {
      schemas: { Error: ERROR_ENVELOPE },
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'One of API_KEYS; writes need it when API_KEYS is set.' },
        watcherKey: { type: 'http', scheme: 'bearer', description: 'WATCHER_KEY, for escrow-event ingestion.' },
      },
    },
  };
}
