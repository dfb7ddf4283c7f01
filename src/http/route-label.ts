/**
 * Route labels for metrics and traces, with bounded cardinality: the route table's pattern, never the
 * concrete ids. HTTP knows no route table; the composition (src/app.ts) hands it the REST matcher's lookup.
 */

/** The pattern of the route a request reaches, or undefined when none does. */
export type RoutePatternOf = (pathname: string, method: string) => string | undefined;

const FIXED_PATHS = new Set(['/health', '/ready', '/relayer/health', '/metrics', '/openapi.json', '/docs', '/docs/redoc.standalone.js']);

/** A route label with bounded cardinality: the route table's pattern, never the concrete ids. */
export function routeLabel(pathname: string, method: string, graphqlEndpoint: string, patternOf: RoutePatternOf): string {
  if (pathname === graphqlEndpoint || FIXED_PATHS.has(pathname)) return pathname;
  return patternOf(pathname, method) ?? 'unmatched';
}
