import { z } from 'zod';
import { snakeCase } from '../domain/input.ts';

/**
 * REST clients send the domain's inputs with snake_case keys and the contract's lowercase enum
 * values; GraphQL takes camelCase keys and UPPER_CASE enum values. Both are read off the input's
 * one schema (src/domain/), so a field added there is a REST field too. Nothing here checks a
 * value: the resolver (or route.ts, for the writes that skip GraphQL) parses the input.
 */

type Def = { type: string; shape?: Record<string, z.ZodType>; innerType?: z.ZodType; in?: z.ZodType; entries?: Record<string, unknown> };

const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The schema under its wrappers (optional, nullable, default, a transform's pipe). */
function unwrap(schema: z.ZodType): Def {
  let def = defOf(schema);
  for (;;) {
    const inner = def.type === 'pipe' ? def.in : def.innerType;
    if (!inner) return def;
    def = defOf(inner);
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function walk(schema: z.ZodType, value: unknown, enumValue: (options: unknown[], value: unknown) => unknown): unknown {
  const def = unwrap(schema);
  if (def.type === 'object' && def.shape && isObject(value)) {
    const renamed: [string, unknown][] = [];
    for (const [key, field] of Object.entries(def.shape)) {
      const restKey = snakeCase(key);
      // Own keys only, and a fresh object: a `__proto__` key in the body stays a plain value.
      if (Object.hasOwn(value, restKey)) renamed.push([key, walk(field, value[restKey], enumValue)]);
    }
    return Object.fromEntries(renamed);
  }
  if (def.type === 'enum' && def.entries) return enumValue(Object.values(def.entries), value);
  return value;
}

/** A REST body with the schema's own keys: what the schema parses, and names in snake_case. */
export function restInput(schema: z.ZodType, body: unknown): unknown {
  return walk(schema, body, (_options, value) => value);
}

/**
 * The GraphQL variables for a REST body: camelCase keys, and enum values in GraphQL's spelling. A
 * value the domain does not list is passed lowercase, which no GraphQL enum value is, so GraphQL
 * refuses it and the schema names the rule.
 */
export function graphqlInput(schema: z.ZodType, body: unknown): unknown {
  return walk(schema, body, (options, value) => {
    if (options.includes(value)) return String(value).toUpperCase();
    return typeof value === 'string' ? value.toLowerCase() : value;
  });
}

type JsonSchema = { [key: string]: unknown };

function snakeCaseKeys(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(snakeCaseKeys);
  if (typeof node !== 'object' || node === null) return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'properties' && typeof value === 'object' && value !== null) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, child]) => [snakeCase(name), snakeCaseKeys(child)]));
    } else if (key === 'required' && Array.isArray(value)) {
      out[key] = value.map((name) => snakeCase(String(name)));
    } else {
      out[key] = snakeCaseKeys(value);
    }
  }
  return out;
}

/**
 * The JSON Schema of an input as REST clients send it (snake_case keys), for the OpenAPI document.
 * A timestamp is text on the wire, whatever else the schema accepts from GraphQL.
 */
export function restJsonSchema(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => {
      if (zodSchema._zod.def.type === 'date') Object.assign(jsonSchema, { type: 'string', format: 'date-time' });
    },
  });
  return snakeCaseKeys(json) as JsonSchema;
}
