import {
  GraphQLNonNull,
  Kind,
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  typeFromAST,
  type FragmentDefinitionNode,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type NamedTypeNode,
  type OperationDefinitionNode,
} from 'graphql';
import { snakeCase } from '../../domain/input.ts';
import { documents, type DocumentName } from '../documents.ts';
import { EXPORT_FORMATS } from '../export.ts';
import { restJsonSchema } from '../input.ts';
import type { Route } from '../route.ts';
import { type JsonSchema, withDescription, enumSchema, selectionSchema, inputSchema, envelope } from './json-schema.ts';

/** One route's operation: parameters from its document's variables, body, answers and errors. */

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

export function routeOperation(schema: GraphQLSchema, route: Route): JsonSchema {
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
  // Variables are the root field's arguments, or the answer's own field's (stats -> series).
  let args = rootField.args;
  for (const key of doc.result.slice(1)) {
    const parent = getNamedType(resultType) as GraphQLObjectType;
    const node = resultSelection!.selections.find((s) => s.kind === Kind.FIELD && (s.alias?.value ?? s.name.value) === key);
    if (!node || node.kind !== Kind.FIELD) throw new Error(`${doc.document}: no ${key} in the selection`);
    const field = parent.getFields()[node.name.value]!;
    resultType = field.type;
    resultSelection = node.selectionSet;
    args = [...args, ...field.args];
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
    const arg = args.find((a) => a.name === name);
    const type = getNullableType(typeFromAST(schema, variable.type as NamedTypeNode) as GraphQLInputType);
    if (bound.includes(name)) continue;
    if (name === 'input' && isInputObjectType(type)) {
      if (!route.body) continue;
      // The rules from the input's zod schema, the words from the GraphQL input type it feeds.
      const described = inputSchema(type, bound);
      const body = doc.input ? describeLike(withoutDialect(restJsonSchema(doc.input)), described) : described;
      requestBody = {
        required: route.body === true,
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
        required: variable.type.kind === Kind.NON_NULL_TYPE,
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
      ...(route.path.startsWith('/stats')
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
