import type { z } from 'zod';
import {
  GraphQLNonNull,
  Kind,
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  typeFromAST,
  type FragmentDefinitionNode,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type NamedTypeNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { snakeCase } from '../domain/input.ts';
import { documents, type DocumentName } from './documents.ts';
import { EXPORT_FORMATS } from './export.ts';
import { restJsonSchema } from './input.ts';
import type { Route } from './routes.ts';

/**
 * The OpenAPI 3.1 document of the REST layer, built from what the routes run (README, REST and GraphQL):
 * the route table gives paths, methods, summaries and status codes; each route's fixed GraphQL document gives
 * the parameters (its variables), the request body (its `input` type, in REST spelling) and the response (its
 * selection, aliases being the REST names), with the schema's descriptions. Nothing here repeats a field.
 */

export interface RouteDoc {
  /** What the operation does, unique in the document: generated clients name their methods and types by it. */
  operationId: string;
  summary: string;
  description?: string;
  tag: 'Orders' | 'Quotes' | 'Statistics' | 'Ingestion' | 'Relayer' | 'Registry' | 'Webhooks';
  /** The fixed document the route runs (src/rest/documents.ts). */
  document: DocumentName;
  /** Where the route's answer is in the document's data. */
  result: string[];
  /** Success statuses and what each means. */
  responses: Partial<Record<200 | 201 | 202, string>>;
  /** Error statuses the route itself gives (every route can also answer 429, 500 and 503). */
  errors: (400 | 401 | 404 | 409 | 410 | 422)[];
  /** A request body that works against the shipped registry. */
  example?: Record<string, unknown>;
  /** Path parameters that fill a differently named variable or input field (`id` -> `endpointId`). */
  pathVariables?: Record<string, string>;
  /** The answer is the result with this field's properties spread into it (`{ ...endpoint, secret }`). */
  merge?: string;
  /** A streamed export: the body is text in one of these media types, one order per line or row. */
  stream?: Record<string, string>;
  /** The body's zod schema (the rule the resolver parses with); its JSON Schema gives the body's rules. */
  input?: z.ZodType;
}

type JsonSchema = Record<string, unknown>;

const ERROR_TEXT: Record<number, string> = {
  400: 'Malformed JSON, a missing or ill-typed field, a bad address, amount, hash, page or filter value.',
  401: 'A key is missing or wrong where one is required (API_KEYS for writes, WATCHER_KEY for ingestion).',
  404: 'No such order, quote or claim.',
  409: 'Conflicts with the current state: quote consumed by another request, an impossible event, a claim in a wrong state.',
  410: 'The quote expired.',
  413: 'The body is over 64 KiB.',
  415: 'The body is not application/json.',
  422: 'Well-formed, but does not match the quote or the asset registry.',
  429: 'Rate limit reached (only when configured); Retry-After says when to retry.',
  500: 'Internal error; the message never carries details.',
  503: 'The database is unreachable; Retry-After says when to retry.',
};

/** GraphQL's scalars as JSON: DateTime and the exact amounts (strings) keep their REST form. */
function scalarSchema(name: string): JsonSchema {
  switch (name) {
    case 'String':
    case 'ID':
      return { type: 'string' };
    case 'Int':
    case 'SafeInt':
      return { type: 'integer' };
    case 'Float':
      return { type: 'number' };
    case 'Boolean':
      return { type: 'boolean' };
    case 'DateTime':
      return {
        type: 'string',
        format: 'date-time',
        pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$',
        examples: ['2026-11-23T12:00:00Z'],
      };
    case 'JSONObject':
      return { type: 'object', additionalProperties: true };
    default:
      return {};
  }
}

function withDescription(schema: JsonSchema, description: string | null | undefined): JsonSchema {
  return description ? { ...schema, description } : schema;
}

function nullable(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  if (Array.isArray(schema.enum)) return { ...schema, enum: [...schema.enum, null], type: ['string', 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

/** REST spells enum values in lowercase (the contract's statuses and kinds). */
const enumSchema = (values: readonly { name: string }[]) => ({ type: 'string', enum: values.map((v) => v.name.toLowerCase()) });

/** The JSON a selection produces, keyed by alias when there is one (the REST names). */
function selectionSchema(
  type: GraphQLOutputType,
  selectionSet: SelectionSetNode | undefined,
  fragments: Map<string, FragmentDefinitionNode>,
): JsonSchema {
  const required = isNonNullType(type);
  const inner = getNullableType(type);
  let schema: JsonSchema;
  if (isListType(inner)) {
    schema = { type: 'array', items: selectionSchema(inner.ofType as GraphQLOutputType, selectionSet, fragments) };
  } else if (isObjectType(inner) && selectionSet) {
    schema = objectSchema(inner, selectionSet, fragments);
  } else if (isEnumType(inner)) {
    schema = enumSchema(inner.getValues());
  } else if (isScalarType(inner)) {
    schema = scalarSchema(inner.name);
  } else {
    schema = {};
  }
  return required ? schema : nullable(schema);
}

function objectSchema(type: GraphQLObjectType, selectionSet: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const collect = (set: SelectionSetNode) => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FRAGMENT_SPREAD) collect(fragments.get(selection.name.value)!.selectionSet);
      else if (selection.kind === Kind.INLINE_FRAGMENT) collect(selection.selectionSet);
      else {
        const field = type.getFields()[selection.name.value]!;
        const key = selection.alias?.value ?? selection.name.value;
        properties[key] = withDescription(selectionSchema(field.type, selection.selectionSet, fragments), field.description);
      }
    }
  };
  collect(selectionSet);
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
}

/** A GraphQL input type as a REST client sends it: snake_case keys, lowercase enum values. */
function inputSchema(type: GraphQLInputType, omit: string[] = []): JsonSchema {
  const inner = getNullableType(type);
  let schema: JsonSchema;
  if (isListType(inner)) schema = { type: 'array', items: inputSchema(inner.ofType as GraphQLInputType) };
  else if (isInputObjectType(inner)) {
    const fields = Object.values(inner.getFields()).filter((f) => !omit.includes(f.name));
    schema = {
      type: 'object',
      properties: Object.fromEntries(fields.map((f) => [snakeCase(f.name), withDescription(inputSchema(f.type), f.description)])),
      required: fields.filter((f) => isNonNullType(f.type)).map((f) => snakeCase(f.name)),
    };
  } else if (isEnumType(inner)) schema = enumSchema(inner.getValues());
  else if (isScalarType(inner)) schema = scalarSchema(inner.name);
  else schema = {};
  return schema;
}

const envelope = (result: JsonSchema): JsonSchema => ({
  type: 'object',
  properties: { status: { const: 'Success' }, result },
  required: ['status', 'result'],
  additionalProperties: false,
});

const ERROR_ENVELOPE: JsonSchema = {
  type: 'object',
  description: 'Every error, REST paths and unknown paths alike: the message names the field and the rule.',
  properties: { status: { const: 'Error' }, result: { type: 'string', description: 'What was wrong.' } },
  required: ['status', 'result'],
  additionalProperties: false,
  examples: [{ status: 'Error', result: 'source.amount must be a positive integer string in base units' }],
};

function operationOf(name: DocumentName) {
  const document = documents[name];
  const fragments = new Map<string, FragmentDefinitionNode>();
  let operation: OperationDefinitionNode | undefined;
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    if (definition.kind === Kind.OPERATION_DEFINITION) operation = definition;
  }
  return { operation: operation!, fragments };
}

const withoutDialect = ({ $schema: _, ...schema }: JsonSchema): JsonSchema => schema;

/** Copies descriptions from `from` onto the same properties of `to`, at every depth. */
function describeLike(to: JsonSchema, from: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...to };
  if (from.description && !out.description) out.description = from.description;
  const toProps = to.properties as Record<string, JsonSchema> | undefined;
  const fromProps = from.properties as Record<string, JsonSchema> | undefined;
  if (toProps && fromProps) {
    out.properties = Object.fromEntries(
      Object.entries(toProps).map(([key, value]) => [key, fromProps[key] ? describeLike(value, fromProps[key]) : value]),
    );
  }
  return out;
}

/** A filter input as query parameters, one per field; a list is one value or a comma-separated list. */
function filterParameters(type: GraphQLInputObjectType): JsonSchema[] {
  return Object.values(type.getFields()).map((field) => {
    const named = getNamedType(field.type);
    const list = isListType(getNullableType(field.type));
    return {
      name: snakeCase(field.name),
      in: 'query',
      required: false,
      description: list ? `${field.description ?? ''} One value or a comma-separated list.`.trim() : field.description,
      schema: list
        ? { type: 'string', ...(isEnumType(named) ? { examples: [enumSchema(named.getValues()).enum.slice(0, 2).join(',')] } : {}) }
        : inputSchema(getNullableType(field.type) as GraphQLInputType),
    };
  });
}

/** `/orders/:orderId` -> `/orders/{order_id}`. */
export const openApiPath = (path: string) => path.replace(/:(\w+)/g, (_, name: string) => `{${snakeCase(name)}}`);

/** Stated on every operation: an empty list is a public read, `{}` beside a key makes the key optional. */
function securityOf(route: Route): JsonSchema[] {
  if (route.watcher) return [{ watcherKey: [] }];
  if (route.write) return [{}, { apiKey: [] }];
  return [];
}

function routeOperation(schema: GraphQLSchema, route: Route): JsonSchema {
  const doc = route.doc;
  const { operation, fragments } = operationOf(doc.document);
  const rootType = (operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType())!;
  const rootSelection = operation.selectionSet.selections[0]!;
  if (rootSelection.kind !== Kind.FIELD) throw new Error(`${doc.document}: the first selection must be a field`);
  const rootField = rootType.getFields()[rootSelection.name.value]!;

  // The answer: the root field's selection, or a field inside it (createOrder -> order).
  let resultType: GraphQLOutputType = rootField.type;
  let resultSelection = rootSelection.selectionSet;
  let description = rootField.description;
  for (const key of doc.result.slice(1)) {
    const parent = getNamedType(resultType) as GraphQLObjectType;
    const node = resultSelection!.selections.find((s) => s.kind === Kind.FIELD && (s.alias?.value ?? s.name.value) === key);
    if (!node || node.kind !== Kind.FIELD) throw new Error(`${doc.document}: no ${key} in the selection`);
    const field = parent.getFields()[node.name.value]!;
    resultType = field.type;
    resultSelection = node.selectionSet;
    description = field.description ?? description;
  }
  // A route answers 404 rather than null: the result itself is never null (a typed client needs no `!`).
  const result = withDescription(
    selectionSchema(new GraphQLNonNull(getNullableType(resultType) as GraphQLOutputType & object), resultSelection, fragments),
    description,
  );
  // `replayed` is read by the route (200 or 201), not returned.
  if (doc.merge) {
    const properties = { ...(result.properties as Record<string, JsonSchema>) };
    const inner = properties[doc.merge]!;
    delete properties[doc.merge];
    Object.assign(properties, inner.properties);
    Object.assign(result, { properties, required: Object.keys(properties) });
  }

  const pathParams = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  const bound = pathParams.map((name) => doc.pathVariables?.[name] ?? name);
  const inputArg = rootField.args.find((a) => a.name === 'input');
  const inputFields =
    inputArg && isInputObjectType(getNamedType(inputArg.type)) ? (getNamedType(inputArg.type) as GraphQLInputObjectType).getFields() : {};
  const parameters: JsonSchema[] = pathParams.map((name, i) => ({
    name: snakeCase(name),
    in: 'path',
    required: true,
    description: rootField.args.find((a) => a.name === bound[i])?.description ?? inputFields[bound[i]!]?.description ?? `The ${name}.`,
    schema: { type: 'string' },
  }));
  let requestBody: JsonSchema | undefined;
  if (doc.stream) {
    parameters.push({
      name: 'format',
      in: 'query',
      required: false,
      description: 'csv (the default) or ndjson.',
      schema: { type: 'string', enum: [...EXPORT_FORMATS] },
    });
    parameters.push(...filterParameters(schema.getType('OrderFilter') as GraphQLInputObjectType));
  }
  for (const variable of doc.stream ? [] : (operation.variableDefinitions ?? [])) {
    const name = variable.variable.name.value;
    const arg = rootField.args.find((a) => a.name === name);
    const type = getNullableType(typeFromAST(schema, variable.type as NamedTypeNode) as GraphQLInputType);
    if (bound.includes(name)) continue;
    if (name === 'input' && isInputObjectType(type)) {
      if (!route.body) continue;
      // The rules from the input's zod schema, the words from the GraphQL input type it feeds.
      const described = inputSchema(type, bound);
      const body = doc.input ? describeLike(withoutDialect(restJsonSchema(doc.input)), described) : described;
      requestBody = {
        required: true,
        description: arg?.description ?? undefined,
        content: {
          'application/json': { schema: { ...body, description: type.description }, ...(doc.example ? { example: doc.example } : {}) },
        },
      };
    } else if (isInputObjectType(type)) {
      parameters.push(...filterParameters(type));
    } else {
      parameters.push({
        name: snakeCase(name),
        in: 'query',
        required: false,
        description: arg?.description,
        // Query strings carry text; the integer is parsed from it (and refused with 400 when it is not one).
        schema: inputSchema(getNullableType(type) as GraphQLInputType),
      });
    }
  }

  const responses: Record<string, JsonSchema> = {};
  for (const [status, text] of Object.entries(doc.responses)) {
    responses[status] = {
      description: text,
      ...(route.path === '/stats'
        ? { headers: { 'Cache-Control': { description: 'public, max-age=<seconds left in the cache>', schema: { type: 'string' } } } }
        : {}),
      content: { 'application/json': { schema: envelope(result) } },
    };
  }
  if (doc.stream) {
    for (const [status, text] of Object.entries(doc.responses)) {
      responses[status] = {
        description: text,
        headers: { 'Content-Disposition': { description: 'attachment; filename="…"', schema: { type: 'string' } } },
        content: Object.fromEntries(
          Object.entries(doc.stream).map(([type, description]) => [type, { schema: { type: 'string', description } }]),
        ),
      };
    }
  }
  const errors = new Set<number>([...doc.errors, 429, 500, 503]);
  if (route.body) {
    errors.add(400);
    errors.add(413);
    errors.add(415);
  }
  for (const status of [...errors].sort()) {
    responses[String(status)] = {
      description: ERROR_TEXT[status]!,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }

  return {
    operationId: doc.operationId,
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: [doc.tag],
    security: securityOf(route),
    ...(parameters.length > 0 ? { parameters: parameters.map(dropUndefined) } : {}),
    ...(requestBody ? { requestBody: dropUndefined(requestBody) } : {}),
    responses,
  };
}

const dropUndefined = (o: JsonSchema): JsonSchema => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null));

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
