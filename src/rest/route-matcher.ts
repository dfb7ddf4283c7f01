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
  const compiled = table.map((route) => ({ route, pattern: new URLPattern({ pathname: route.path }) }));
  const matches = (pathname: string): RouteMatch[] => {
    // A trailing slash names the same resource: `/orders/` is `/orders`.
    const path = pathname.replace(/\/+$/, '');
    const found: RouteMatch[] = [];
    for (const { route, pattern } of compiled) {
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
