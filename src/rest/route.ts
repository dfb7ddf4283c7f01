import type { z } from 'zod';
import { parseInput } from '../domain/input.ts';
import type { OrdersStore } from '../db/orders-store.ts';
import type { DomainDeps } from '../domain/deps.ts';
import { type ApiKeyCheck, requireWriter } from '../http/api-keys.ts';
import type { Registry } from '../domain/registry/registry.ts';
import { CodedError, toClientError } from '../http/client-error.ts';
import { DomainError } from '../domain/errors.ts';
import type { DocumentName } from './documents.ts';
import { graphqlInput, restInput } from './input.ts';
import type { RouteDoc } from './openapi/route-doc.ts';

/**
 * What a REST route is: each turns a request into the variables of one fixed GraphQL document and picks
 * its answer out of the result. A body becomes the mutation's input as it is, renamed (src/rest/input.ts);
 * the resolver parses it with the input's schema. The hottest paths answer what their document would without
 * running it: the user page (rendered-pages.ts) and the creates, which parse the body here and call the domain
 * as the resolver does (runDomainWrite, rendered-rows.ts). The table itself is src/rest/routes.ts.
 */

export interface RouteInput {
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  registry: Registry;
  now: Date;
  /** The request's reads of orders, for the pages rendered without GraphQL (rendered-pages.ts). */
  orders(): OrdersStore;
  /** The domain's dependencies, for the creates answered without GraphQL (rendered-rows.ts). */
  writer(): RouteWriter;
}

/**
 * What a write that skips GraphQL needs: the domain's dependencies, and `wrote()`, which marks the client as
 * a writer for its reads (src/db/replicas/), as Yoga's execution does for every mutation (src/http/read-client.ts).
 */
export interface RouteWriter {
  deps: DomainDeps;
  /** The request's API key, checked as the mutations' resolvers check it (requireWriter). */
  apiKey: ApiKeyCheck;
  wrote(): void;
}

/**
 * Runs a write of the domain as the resolver would: the API key checked, the body parsed with the input's schema
 * in REST's spelling (a refusal names the field in snake_case), the client marked as a writer before the write
 * and again after it.
 */
export async function runDomainWrite<Schema extends z.ZodType, Result>(
  writer: RouteWriter,
  schema: Schema,
  body: unknown,
  write: (deps: DomainDeps, command: z.output<Schema>) => Promise<Result>,
): Promise<Result> {
  requireWriter(writer);
  const command = parseInput(schema, restInput(schema, body), 'snake_case');
  writer.wrote();
  try {
    return await write(writer.deps, command);
  } finally {
    writer.wrote();
  }
}

export interface RouteResult {
  status: number;
  result: unknown;
  headers?: Record<string, string>;
  /** The result as JSON text already (a rendered page), put in the envelope as it is; `result` is then unused. */
  json?: string;
  /** An answer outside the envelope (an export's CSV or NDJSON stream), sent as it is. */
  response?: Response;
}

/** Runs a fixed document and returns its data; a GraphQL error is thrown as the client error it is. */
export type RunDocument = (
  name: DocumentName,
  variables: Record<string, unknown>,
) => Promise<{ data: Record<string, unknown>; cacheMaxAgeSecs?: number }>;

export interface Route {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  /** True when the handler needs the parsed JSON body; 'optional' when a request may come without one. */
  body?: boolean | 'optional';
  /** A write: needs an API key when API_KEYS is set (checked before the body). */
  write?: boolean;
  /** Chain-watcher ingestion: needs WATCHER_KEY (checked before the body). */
  watcher?: boolean;
  /** What the OpenAPI document says of it (src/rest/openapi/operations.ts builds the rest from the GraphQL document). */
  doc: RouteDoc;
  handle(input: RouteInput, run: RunDocument): Promise<RouteResult>;
}

export const ok = (result: unknown, status = 200): RouteResult => ({ status, result });
export const streamed = (response: Response): RouteResult => ({ status: response.status, result: undefined, response });

/**
 * Runs a write's document with the body as its `input` (plus fields from the path). When GraphQL or
 * the resolver refuses the input (400), the body is parsed with the same schema here, so the message
 * names the field in snake_case, as this client spelled it; any other refusal passes unchanged.
 */
export async function runWrite(
  run: RunDocument,
  name: DocumentName,
  schema: z.ZodType,
  body: unknown,
  fromPath: Record<string, unknown> = {},
) {
  try {
    return await run(name, { input: { ...(graphqlInput(schema, body) as object), ...fromPath } });
  } catch (error) {
    if (toClientError(error).code === 'BAD_REQUEST') {
      try {
        parseInput(schema, restInput(schema, body), 'snake_case');
      } catch (respelled) {
        // A coded error, as the document's own would be: Yoga has logged this refusal already.
        throw respelled instanceof DomainError ? new CodedError(respelled.code, respelled.message) : respelled;
      }
    }
    throw error;
  }
}
