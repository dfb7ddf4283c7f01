import type { GraphQLParams, Plugin } from 'graphql-yoga';
import { BadRequestError, DomainError } from '../domain/errors.ts';
import { errorEnvelope, readJsonBody } from './envelope.ts';

/**
 * GraphQL POST bodies get the REST layer's checks: JSON only (415), at most 64 KiB also when
 * chunked (413), valid JSON (400), one operation (batching is off). GETs carry no body.
 */
export function graphqlBodyPlugin(): Plugin {
  return {
    onRequestParse({ request, setRequestParser }) {
      if (request.method !== 'POST') return;
      setRequestParser(async (req) => {
        try {
          const body = await readJsonBody(req);
          if (typeof body !== 'object' || body === null || Array.isArray(body)) {
            throw new BadRequestError('body must be one GraphQL request object ({"query": ...}); batching is off');
          }
          return body as GraphQLParams;
        } catch (error) {
          if (error instanceof DomainError) return errorEnvelope(error);
          throw error;
        }
      });
    },
  };
}
