import { getNamedType, isInputObjectType, isNonNullType, type GraphQLInputObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EscrowEventSchema } from '../src/domain/escrow-events.ts';
import { GRAPHQL_FILTER_NAMES } from '../src/domain/order-list.ts';
import { CreateOrderSchema } from '../src/domain/orders.ts';
import { CreateQuoteSchema } from '../src/domain/quotes.ts';
import { SubmitClaimSchema } from '../src/relayer/claims.ts';
import { schema } from '../src/schema/index.ts';
import { CreateWebhookSchema, RotateSecretSchema } from '../src/webhooks/endpoints.ts';

/**
 * Each GraphQL input type is written in Pothos beside the zod schema its resolver parses with: the two
 * must name the same fields, with the same ones required, all the way down. A field added to one and
 * not the other fails here.
 */
const PAIRS: { input: string; schema: z.ZodType; fromElsewhere?: string[] }[] = [
  { input: 'CreateOrderInput', schema: CreateOrderSchema },
  { input: 'CreateQuoteInput', schema: CreateQuoteSchema },
  { input: 'SubmitClaimInput', schema: SubmitClaimSchema },
  // The escrow's id is REST's path parameter, not part of the event.
  { input: 'RecordEscrowEventInput', schema: EscrowEventSchema, fromElsewhere: ['swapId'] },
  { input: 'CreateWebhookEndpointInput', schema: CreateWebhookSchema },
  { input: 'RotateWebhookSecretInput', schema: RotateSecretSchema, fromElsewhere: ['id'] },
];

/** Inputs with no zod schema, and why. */
const WITHOUT_SCHEMA: Record<string, string[]> = {
  // Each filter is parsed on its own (src/domain/order-list.ts); GRAPHQL_FILTER_NAMES lists every one.
  OrderFilter: Object.keys(GRAPHQL_FILTER_NAMES),
  // Two ids: an id that cannot exist is a 404 like any unknown one, so there is nothing to parse.
  RedeliverWebhookInput: ['endpointId', 'deliveryId'],
};

/** The object under a schema's wrappers (optional, nullable, a transform's pipe). */
function objectOf(field: z.ZodType): z.ZodObject | undefined {
  if (field instanceof z.ZodObject) return field;
  if (field instanceof z.ZodOptional || field instanceof z.ZodNullable) return objectOf(field.unwrap() as z.ZodType);
  if (field instanceof z.ZodPipe) return objectOf(field.in as z.ZodType);
  return undefined;
}

/** Every field of the input, `path` first, with whether it is required and, for nested inputs, its fields. */
function differences(input: GraphQLInputObjectType, zodSchema: z.ZodType, path: string, fromElsewhere: string[] = []): string[] {
  const shape = objectOf(zodSchema)?.shape as Record<string, z.ZodType> | undefined;
  if (!shape) return [`${path}: the zod schema is not an object`];
  const problems: string[] = [];
  const fields = input.getFields();
  const graphqlNames = Object.keys(fields).filter((name) => !fromElsewhere.includes(name));
  for (const name of new Set([...graphqlNames, ...Object.keys(shape)])) {
    const field = fields[name];
    const zodField = shape[name];
    if (!field) problems.push(`${path}.${name}: in zod, not in GraphQL`);
    else if (!zodField) problems.push(`${path}.${name}: in GraphQL, not in zod`);
    else {
      const zodRequired = !zodField.safeParse(undefined).success;
      if (isNonNullType(field.type) !== zodRequired) problems.push(`${path}.${name}: required in ${zodRequired ? 'zod' : 'GraphQL'} only`);
      const named = getNamedType(field.type);
      if (isInputObjectType(named)) problems.push(...differences(named, zodField, `${path}.${name}`));
    }
  }
  return problems;
}

describe('GraphQL inputs and their zod schemas', () => {
  it.each(PAIRS)('$input has the fields of its schema', ({ input, schema: zodSchema, fromElsewhere }) => {
    const type = schema.getType(input);
    expect(isInputObjectType(type)).toBe(true);
    expect(differences(type as GraphQLInputObjectType, zodSchema, input, fromElsewhere)).toEqual([]);
  });

  it('finds a field one side lacks', () => {
    const type = schema.getType('CreateOrderInput') as GraphQLInputObjectType;
    const withMemo = CreateOrderSchema.extend({ memo: z.string().optional() });
    expect(differences(type, withMemo, 'CreateOrderInput')).toEqual(['CreateOrderInput.memo: in zod, not in GraphQL']);
  });

  it.each(Object.entries(WITHOUT_SCHEMA))('%s, which has no zod schema, has the fields its parser reads', (name, expected) => {
    const type = schema.getType(name) as GraphQLInputObjectType;
    expect(Object.keys(type.getFields()).sort()).toEqual([...expected].sort());
  });

  it('covers every input type of the schema', () => {
    const inputs = Object.values(schema.getTypeMap())
      .filter((type) => isInputObjectType(type) && !type.name.startsWith('__'))
      .map((type) => type.name);
    // A paired input's nested inputs are compared with it.
    const reachable = (name: string): string[] => [
      name,
      ...Object.values((schema.getType(name) as GraphQLInputObjectType).getFields())
        .map((field) => getNamedType(field.type))
        .filter(isInputObjectType)
        .flatMap((type) => reachable(type.name)),
    ];
    const covered = new Set([...PAIRS.flatMap((pair) => reachable(pair.input)), ...Object.keys(WITHOUT_SCHEMA)]);
    expect(inputs.sort()).toEqual([...covered].sort());
  });
});
