import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../src/rest/api-docs.ts';
import { openApiPath } from '../../src/rest/openapi/operations.ts';
import { routeMatcher } from '../../src/rest/route-matcher.ts';
import { routes } from '../../src/rest/routes.ts';

/**
 * Every REST answer the suite receives (test/support/app.ts) is checked against /openapi.json: a status the
 * document does not list for the operation, or a body its schema refuses, fails the test that made the call.
 */

type Operation = { responses: Record<string, { content?: Record<string, { schema: unknown }> }> };
const spec = openApiDocument() as { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
ajv.addSchema({ $id: 'openapi', components: spec.components });
const compiled = new Map<unknown, ValidateFunction>();

function validatorFor(schema: unknown): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    // References point into the document's components.
    const text = JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/');
    validate = ajv.compile(JSON.parse(text) as object);
    compiled.set(schema, validate);
  }
  return validate;
}

const FIXED = ['/health', '/ready', '/relayer/health'];
const matcher = routeMatcher(routes);

function documentPath(pathname: string): string | undefined {
  if (FIXED.includes(pathname)) return pathname;
  const route = matcher.matches(pathname)[0]?.route;
  return route && openApiPath(route.path);
}

export function checkAgainstOpenApi(method: string, url: string, status: number, contentType: string | null, body: unknown): void {
  const pathname = new URL(url, 'http://test').pathname;
  // GraphQL has its own schema (schema.graphql); /metrics and the docs are not JSON APIs.
  if (pathname === '/graphql' || pathname === '/metrics' || pathname.startsWith('/docs') || pathname === '/openapi.json') return;
  const path = documentPath(pathname);
  const operation = path ? spec.paths[path]?.[method.toLowerCase()] : undefined;
  let schema: unknown;
  if (operation) {
    const response = operation.responses[String(status)];
    if (!response) throw new Error(`OpenAPI: ${method} ${path} answered ${status}, which the document does not list`);
    schema = response.content?.[contentType?.split(';')[0] ?? '']?.schema;
    if (!schema && response.content)
      throw new Error(`OpenAPI: ${method} ${path} ${status} answered ${contentType}, which the document does not list`);
  } else if (status >= 400 && contentType?.startsWith('application/json')) {
    // Unknown paths and wrong methods: the error envelope.
    schema = { $ref: '#/components/schemas/Error' };
  }
  if (schema === undefined || typeof body === 'string') return;
  const validate = validatorFor(schema);
  if (!validate(body)) {
    throw new Error(`OpenAPI: ${method} ${pathname} ${status}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`);
  }
}
