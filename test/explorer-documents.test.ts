import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildSchema, type OperationDefinitionNode, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import * as documents from '../src/explorer/documents.ts';
import { DocumentTypes } from './support/document-types.ts';

/**
 * The explorer's documents are valid against the published schema, as any client's must be, and the result and
 * variables types written beside each match what it selects and declares.
 */
describe('explorer documents', () => {
  const schema = buildSchema(readFileSync(new URL('../schema.graphql', import.meta.url), 'utf8'));
  const exported = Object.entries(documents as Record<string, unknown>).filter(
    (entry): entry is [string, documents.Document<unknown, unknown>] =>
      typeof entry[1] === 'object' && entry[1] !== null && 'source' in entry[1],
  );

  it('lists every exported document', () => {
    expect(exported.map(([, doc]) => doc).sort((a, b) => a.name.localeCompare(b.name))).toEqual(
      [...documents.DOCUMENTS].sort((a, b) => a.name.localeCompare(b.name)),
    );
  });

  it.each(documents.DOCUMENTS.map((doc) => [doc.name, doc] as const))('%s is valid against schema.graphql', (name, doc) => {
    const parsed = parse(doc.source);
    expect(validate(schema, parsed).map((error) => error.message)).toEqual([]);
    // The name the client sends as operationName is the document's one operation.
    expect(parsed.definitions.map((definition) => ('name' in definition ? definition.name?.value : undefined))).toEqual([name]);
  });

  it('types each result and its variables as the document selects and declares them', () => {
    const types = new DocumentTypes(fileURLToPath(new URL('../src/explorer/documents.ts', import.meta.url)));
    const problems = exported.flatMap(([exportName, doc]) => {
      const operation = parse(doc.source).definitions[0] as OperationDefinitionNode;
      const { result, variables } = types.typesOf(exportName);
      return [...types.compareResult(schema, operation, result), ...types.compareVariables(schema, operation, variables)].map(
        (problem) => `${exportName} ${problem}`,
      );
    });
    expect(problems).toEqual([]);
  }, 60_000);
});
