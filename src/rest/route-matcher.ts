import type { Route } from './route.ts';

/**
 * Matches a request's path against the route table: each pattern of literal segments and `:name` parameters
 * compiled to one regular expression that reads as URLPattern reads the pattern (test/route-matcher.test.ts
 * holds the two equal over the table). URLPattern itself (a polyfill on Node 20 and 22) parses URLs to
 * canonicalise every input, which cost more than the rest of a small request.
 */

export interface RouteMatch {
  route: Route;
  /** The path's parameters, percent-decoded. */
  params: Record<string, string>;
}

export interface RouteMatcher {
  /** Every route whose pattern the path fits, in table order. */
  matches(pathname: string): RouteMatch[];
  /** The pattern of the route a request would reach (the method's, else the path's first), for labels. */
  patternOf(pathname: string, method: string): string | undefined;
}

export function routeMatcher(table: readonly Route[]): RouteMatcher {
  const compiled = table.map((route) => ({ route, match: segmentMatcher(route.path) }));
  const matches = (pathname: string): RouteMatch[] => {
    // A trailing slash names the same resource: `/orders/` is `/orders`.
    const path = pathname.replace(/\/+$/, '');
    const found: RouteMatch[] = [];
    for (const { route, match } of compiled) {
      const groups = match(path);
      const params = groups && decodeParams(groups);
      if (params) found.push({ route, params });
    }
    return found;
  };
  return {
    matches,
    patternOf(pathname, method) {
      const found = matches(pathname);
      const wanted = method === 'HEAD' ? 'GET' : method;
      return (found.find((m) => m.route.method === wanted) ?? found[0])?.route.path;
    },
  };
}

/**
 * The parameters of a path under a route pattern of literal segments and `:name` parameters (each one
 * segment of one or more characters, as URLPattern reads them), still percent-encoded; undefined when the
 * path does not fit. For the paths a URL gives, which are already canonical.
 */
function segmentMatcher(pattern: string): (path: string) => Record<string, string> | undefined {
  if (!/^(\/([A-Za-z0-9_.-]+|:[A-Za-z_][A-Za-z0-9_]*))+$/.test(pattern))
    throw new Error(`route pattern ${pattern} has a syntax the matcher does not read`);
  if (!pattern.includes(':')) return (path) => (path === pattern ? {} : undefined);
  const segments = pattern
    .split('/')
    .map((segment) => (segment.startsWith(':') ? `(?<${segment.slice(1)}>[^/]+)` : segment.replace(/\./g, '\\.')));
  const regex = new RegExp(`^${segments.join('/')}$`);
  return (path) => regex.exec(path)?.groups as Record<string, string> | undefined;
}

/** A parameter that is not valid percent-encoding matches nothing (a 404, not a 500). */
function decodeParams(groups: Record<string, string | undefined>): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(groups)) {
    if (value === undefined || value === '') return undefined;
    try {
      params[name] = decodeURIComponent(value);
    } catch {
      return undefined;
    }
  }
  return params;
}
