import { readFileSync } from 'node:fs';
import { isEnumType, isInputObjectType, isInterfaceType, isObjectType, validate, type GraphQLNamedType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { documents } from '../src/rest/documents.ts';
import { printSortedSchema, schema } from '../src/schema/index.ts';

describe('GraphQL schema', () => {
  it('matches the checked-in schema.graphql (run `npm run schema:print` after a change)', () => {
    const committed = readFileSync(new URL('../schema.graphql', import.meta.url), 'utf8');
    expect(committed).toBe(printSortedSchema());
  });

  it('validates every fixed document the REST layer runs', () => {
    for (const [name, document] of Object.entries(documents)) {
      expect(validate(schema, document), name).toEqual([]);
    }
  });

  it('uses the contract names', () => {
    const sdl = printSortedSchema();
    for (const name of ['orderId', 'sourceIntent', 'last24h', 'DESTINATION_CLAIMED', 'ordersByUser', 'createQuote', 'createOrder']) {
      expect(sdl).toContain(name);
    }
  });

  it('describes every type, field, argument, input field and enum value', () => {
    const missing: string[] = [];
    for (const type of Object.values(schema.getTypeMap()) as GraphQLNamedType[]) {
      if (type.name.startsWith('__')) continue;
      if (!type.description) missing.push(type.name);
      if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
        for (const field of Object.values(type.getFields())) {
          if (!field.description) missing.push(`${type.name}.${field.name}`);
          for (const arg of 'args' in field ? field.args : [])
            if (!arg.description) missing.push(`${type.name}.${field.name}(${arg.name})`);
        }
      }
      if (isEnumType(type)) for (const value of type.getValues()) if (!value.description) missing.push(`${type.name}.${value.name}`);
    }
    expect(missing).toEqual([]);
  });

  it('names the setting, not a number, where a text depends on configuration', () => {
    const stats = schema.getType('Stats')!.description!;
    expect(stats).toContain('STATS_CACHE_SECONDS');
    expect(stats).not.toMatch(/\d|minute/);
    const expired = schema.getType('OrderStatus');
    expect(isEnumType(expired) && expired.getValue('EXPIRED')?.description).toContain('ORDER_DEADLINE_SECONDS');
    const quote = schema.getType('Quote');
    expect(isObjectType(quote) && quote.getFields().expiresAt?.description).toContain('QUOTE_TTL_SECONDS');
  });
});
