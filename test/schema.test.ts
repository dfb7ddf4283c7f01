import { readFileSync } from 'node:fs';
import { validate } from 'graphql';
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
});
