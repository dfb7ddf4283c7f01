import { createClient } from 'graphql-sse';
import type { Document } from '../documents.ts';

/** The public GraphQL endpoint, on the server that serves the page. */
const ENDPOINT = '/graphql';

export interface ApiError {
  message: string;
  path?: readonly (string | number)[];
  extensions?: { code?: string };
}

export interface ApiResult<Result> {
  data: Result | null;
  errors: ApiError[];
}

/** An answer the page cannot use: shown to the reader as its message, never as a stack. */
export class ApiFailure extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** One query over POST (JSON), as any client of the API sends it; errors beside data are returned, not thrown. */
export async function query<Result, Variables>(doc: Document<Result, Variables>, variables: Variables): Promise<ApiResult<Result>> {
  let response: Response;
  try {
    response = await fetch(ENDPOINT, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' },
      body: JSON.stringify({ query: doc.source, operationName: doc.name, variables }),
    });
  } catch {
    throw new ApiFailure('The server could not be reached.');
  }
  let body: { data?: Result | null; errors?: ApiError[] };
  try {
    body = (await response.json()) as typeof body;
  } catch {
    throw new ApiFailure(`The server answered ${response.status} without a GraphQL result.`);
  }
  return { data: body.data ?? null, errors: body.errors ?? [] };
}

/** The error of one top-level field, if it failed. */
export function fieldError(result: ApiResult<unknown>, field: string): ApiError | undefined {
  return result.errors.find((error) => error.path?.[0] === field);
}

/** The data, or the first error as an ApiFailure when there is none. */
export function dataOf<Result>(result: ApiResult<Result>): Result {
  if (result.data) return result.data;
  const [first] = result.errors;
  throw new ApiFailure(first?.message ?? 'The server answered without data.', first?.extensions?.code);
}

/**
 * A subscription over server-sent events: a POST with a JSON body, which needs no CSRF header (unlike a GET),
 * answered as a stream by the gateway's own SSE transport. Returns the function that ends it.
 */
export function subscribe<Result, Variables>(
  doc: Document<Result, Variables>,
  variables: Variables,
  onData: (data: Result) => void,
  onError: (message: string) => void,
): () => void {
  const client = createClient({ url: `${location.origin}${ENDPOINT}`, singleConnection: false, retryAttempts: 5 });
  const stop = client.subscribe<Result>(
    { query: doc.source, operationName: doc.name, variables: variables as Record<string, unknown> },
    {
      next: (result) => {
        if (result.data) onData(result.data);
        else if (result.errors?.length) onError(result.errors[0]!.message);
      },
      error: (error) => onError(error instanceof Error ? error.message : 'the live connection closed'),
      complete: () => {},
    },
  );
  return () => {
    stop();
    client.dispose();
  };
}
