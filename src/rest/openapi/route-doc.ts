import type { z } from 'zod';
import type { DocumentName } from '../documents.ts';

/** What the OpenAPI document says of a route; the rest comes from its GraphQL document (document.ts). */
export interface RouteDoc {
  /** What the operation does, unique in the document: generated clients name their methods and types by it. */
  operationId: string;
  summary: string;
  description?: string;
  tag: 'Orders' | 'Quotes' | 'Statistics' | 'Ingestion' | 'Relayer' | 'Registry' | 'Webhooks';
  /** The fixed document the route runs (src/rest/documents.ts). */
  document: DocumentName;
  /** Where the route's answer is in the document's data. */
  result: string[];
  /** Success statuses and what each means. */
  responses: Partial<Record<200 | 201 | 202, string>>;
  /** Error statuses the route itself gives (every route can also answer 429, 500 and 503). */
  errors: (400 | 401 | 404 | 409 | 410 | 422)[];
  /** A request body that works against the shipped registry. */
  example?: Record<string, unknown>;
  /** Path parameters that fill a differently named variable or input field (`id` -> `endpointId`). */
  pathVariables?: Record<string, string>;
  /** The answer is the result with this field's properties spread into it (`{ ...endpoint, secret }`). */
  merge?: string;
  /** A streamed export: the body is text in one of these media types, one order per line or row. */
  stream?: Record<string, string>;
  /** The body's zod schema (the rule the resolver parses with); its JSON Schema gives the body's rules. */
  input?: z.ZodType;
}
