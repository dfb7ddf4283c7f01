import { URLPattern } from '@whatwg-node/fetch';
import type { Route } from './route.ts';

/**
 * Matches a request's path against the route table with URLPattern, as Yoga's own plugins match theirs
 * (`@whatwg-node/fetch` gives the ponyfill where the Node line has no global URLPattern).
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
  const compiled = table.map((route) => ({ route, pattern: new URLPattern({ pathname: route.path }), fits: fitsSegments(route.path) }));
  const matches = (pathname: string): RouteMatch[] => {
    // A trailing slash names the same resource: `/orders/` is `/orders`.
    const path = pathname.replace(/\/+$/, '');
    const found: RouteMatch[] = [];
    for (const { route, pattern, fits } of compiled) {
      // The polyfill's exec costs more than the rest of a small request: only a path that fits the route's
      // segments is handed to it. A route without parameters fits its own path only, and needs no exec.
      if (!fits(path)) continue;
      if (!route.path.includes(':')) {
        found.push({ route, params: {} });
        continue;
      }
      const groups = pattern.exec({ pathname: path })?.pathname.groups;
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
 * Whether a path can match a route pattern of literal segments and `:name` parameters (each one segment of
 * one or more characters, as URLPattern reads them): a test no looser or stricter than the pattern's, for
 * the paths a URL gives (already canonical).
 */
function fitsSegments(pattern: string): (path: string) => boolean {
  if (!/^(\/([A-Za-z0-9_.-]+|:[A-Za-z_][A-Za-z0-9_]*))+$/.test(pattern))
    throw new Error(`route pattern ${pattern} has a syntax the matcher does not pre-check`);
  if (!pattern.includes(':')) return (path) => path === pattern;
  const segments = pattern.split('/').map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/\./g, '\\.')));
  const regex = new RegExp(`^${segments.join('/')}$`);
  return (path) => regex.test(path);
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
