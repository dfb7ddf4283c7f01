import {
  Kind,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type FragmentDefinitionNode,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type SelectionSetNode,
} from 'graphql';
import { snakeCase } from '../../domain/input.ts';

/** GraphQL types as JSON Schema, in REST spelling: selections as answers, input types as bodies. */

export type JsonSchema = Record<string, unknown>;

/** GraphQL's scalars as JSON: DateTime and the exact amounts (strings) keep their REST form. */
export function scalarSchema(name: string): JsonSchema {
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

export function withDescription(schema: JsonSchema, description: string | null | undefined): JsonSchema {
  return description ? { ...schema, description } : schema;
}

export function nullable(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  if (Array.isArray(schema.enum)) return { ...schema, enum: [...schema.enum, null], type: ['string', 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

/** REST spells enum values in lowercase (the contract's statuses and kinds). */
export const enumSchema = (values: readonly { name: string }[]) => ({ type: 'string', enum: values.map((v) => v.name.toLowerCase()) });

/** The JSON a selection produces, keyed by alias when there is one (the REST names). */
export function selectionSchema(
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

export function objectSchema(
  type: GraphQLObjectType,
  selectionSet: SelectionSetNode,
  fragments: Map<string, FragmentDefinitionNode>,
): JsonSchema {
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
export function inputSchema(type: GraphQLInputType, omit: string[] = []): JsonSchema {
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

export const envelope = (result: JsonSchema): JsonSchema => ({
  type: 'object',
  properties: { status: { const: 'Success' }, result },
  required: ['status', 'result'],
  additionalProperties: false,
});

export const ERROR_ENVELOPE: JsonSchema = {
  type: 'object',
  description: 'Every error, REST paths and unknown paths alike: the message names the field and the rule.',
  properties: { status: { const: 'Error' }, result: { type: 'string', description: 'What was wrong.' } },
  required: ['status', 'result'],
  additionalProperties: false,
  examples: [{ status: 'Error', result: 'source.amount must be a positive integer string in base units' }],
};
