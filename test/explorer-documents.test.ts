import { readFileSync } from 'node:fs';
import { buildSchema, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { DOCUMENTS } from '../src/explorer/documents.ts';

/** The explorer's documents are valid against the published schema, as any client's must be. */
describe('explorer documents', () => {
  const schema = buildSchema(readFileSync(new URL('../schema.graphql', import.meta.url), 'utf8'));

  it.each(DOCUMENTS.map((doc) => [doc.name, doc] as const))('%s is valid against schema.graphql', (name, doc) => {
    const parsed = parse(doc.source);
    expect(validate(schema, parsed).map((error) => error.message)).toEqual([]);
    // The name the client sends as operationName is the document's one operation.
    expect(parsed.definitions.map((definition) => ('name' in definition ? definition.name?.value : undefined))).toEqual([name]);
  });
});
