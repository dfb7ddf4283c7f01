import { PothosValidationError } from '@pothos/core';
import { GraphQLError } from 'graphql';
import type { Logger } from 'pino';
import { MAX_LIMIT } from '../domain/order-list.ts';
import { toClientError } from './client-error.ts';

/**
 * Only client errors (src/http/client-error.ts) reach clients with their message; GraphQL's own
 * errors (syntax, validation) pass as they are; anything else is logged and masked.
 */
export function maskError(error: unknown, message: string, logger: Logger): Error {
  if (error instanceof GraphQLError && !error.originalError) return error;
  // A variable a scalar could not parse (its parser threw): the client's input, not our failure.
  if (error instanceof GraphQLError && !error.path && error.message.startsWith('Variable "$')) {
    return new GraphQLError(error.message, { nodes: error.nodes, extensions: { code: 'BAD_REQUEST' } });
  }
  const original = error instanceof GraphQLError ? error.originalError : error;
  // plugin-relay's decoding of a cursor the client made up or mangled.
  if (original instanceof PothosValidationError && /cursor/i.test(original.message)) {
    const gqlError = error instanceof GraphQLError ? error : undefined;
    return new GraphQLError('after and before must be cursors this API returned (edges.cursor, pageInfo.startCursor or endCursor)', {
      nodes: gqlError?.nodes,
      path: gqlError?.path,
      extensions: { code: 'BAD_REQUEST' },
    });
  }
  // plugin-relay's check of first and last, before the resolver's own: a negative size is the client's.
  if (original instanceof PothosValidationError && /^Argument "(first|last)"/.test(original.message)) {
    const gqlError = error instanceof GraphQLError ? error : undefined;
    const size = /"(first|last)"/.exec(original.message)![1];
    return new GraphQLError(`${size} must be from 0 to ${MAX_LIMIT}`, {
      nodes: gqlError?.nodes,
      path: gqlError?.path,
      extensions: { code: 'BAD_REQUEST' },
    });
  }
  // plugin-relay's check of directions: a size with the other direction's cursor. (Its other validation errors
  // can be ours, a schema's mistake: they stay internal below.)
  const mixed =
    original instanceof PothosValidationError && /^Arguments "(\w+)" and "(\w+)" are not supported at the same time/.exec(original.message);
  if (mixed) {
    const gqlError = error instanceof GraphQLError ? error : undefined;
    const text = `${mixed[1]} and ${mixed[2]} cannot be used together: page forwards with first and after, backwards with last and before`;
    return new GraphQLError(text, { nodes: gqlError?.nodes, path: gqlError?.path, extensions: { code: 'BAD_REQUEST' } });
  }
  const client = toClientError(original);
  if (client.code === 'INTERNAL') {
    logger.error({ err: original }, 'internal error in a resolver');
    return new GraphQLError(message, { extensions: { code: 'INTERNAL' } });
  }
  if (client.code === 'UNAVAILABLE') {
    logger.warn({ err: (original as Error)?.message }, 'database unavailable');
    return new GraphQLError(client.message, { extensions: { code: client.code } });
  }
  const gqlError = error instanceof GraphQLError ? error : undefined;
  return new GraphQLError(client.message, { nodes: gqlError?.nodes, path: gqlError?.path, extensions: { code: client.code } });
}
