import type { GraphQLError } from 'graphql';
import type { YogaServerInstance } from 'graphql-yoga';
import { CodedError, INTERNAL_MESSAGE, isErrorCode } from '../http/client-error.ts';
import type { GraphQLContext } from '../schema/context.ts';
import { documents } from './documents.ts';
import type { RunDocument } from './route.ts';

/**
 * Runs a fixed document through Yoga's own pipeline (plugins, masking) in-process, so REST and
 * GraphQL share every resolver and rule.
 */
export function runDocument(yoga: YogaServerInstance<Record<string, never>, GraphQLContext>, request: Request): RunDocument {
  return async (name, variables) => {
    const { execute, contextFactory, schema: enveloped } = yoga.getEnveloped({ request });
    const contextValue = (await contextFactory()) as unknown as GraphQLContext;
    const result = await execute({ schema: enveloped, document: documents[name], variableValues: variables, contextValue });
    if (Symbol.asyncIterator in result) throw new Error('unexpected streamed result');
    const [first] = result.errors ?? [];
    if (first) throw asClientError(first);
    return { data: (result.data ?? {}) as Record<string, unknown>, cacheMaxAgeSecs: contextValue.cacheMaxAgeSecs };
  };
}

/** A document's first error, as the client error it is (masking left its code and message). */
function asClientError(error: GraphQLError): CodedError {
  const code = error.extensions?.code;
  if (isErrorCode(code)) return new CodedError(code, code === 'INTERNAL' ? INTERNAL_MESSAGE : error.message);
  // The documents are fixed and valid: an error outside any field can only be the variables refused.
  if (!error.originalError && !error.path) return new CodedError('BAD_REQUEST', error.message);
  return new CodedError('INTERNAL', INTERNAL_MESSAGE);
}
