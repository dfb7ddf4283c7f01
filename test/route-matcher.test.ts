import { URLPattern } from '@whatwg-node/fetch';
import { describe, expect, it } from 'vitest';
import type { Route } from '../src/rest/route.ts';
import { routeMatcher } from '../src/rest/route-matcher.ts';
import { routes } from '../src/rest/routes.ts';

/** Every route's pattern run by URLPattern itself, as the matcher did before it pre-checked the segments. */
function byUrlPattern(table: readonly Route[], pathname: string) {
  const path = pathname.replace(/\/+$/, '');
  return table.flatMap((route) => {
    const groups = new URLPattern({ pathname: route.path }).exec({ pathname: path })?.pathname.groups;
    if (!groups) return [];
    const entries = Object.entries(groups as Record<string, string | undefined>);
    if (entries.some(([, v]) => !v)) return [];
    try {
      return [
        {
          path: route.path,
          method: route.method,
          params: Object.fromEntries(entries.map(([k, v]) => [k, decodeURIComponent(v as string)])),
        },
      ];
    } catch {
      return [];
    }
  });
}

describe('the REST route matcher', () => {
  it('matches every path as URLPattern does', () => {
    const matcher = routeMatcher(routes);
    const paths = [
      '/orders',
      '/orders/',
      '/orders//',
      '/quotes',
      '/Quotes',
      '/quotes/q_abc',
      '/quotes/q_abc/',
      '/quotes/q_abc/x',
      '/orders/user/someone',
      '/orders/user/a%2Fb',
      '/orders/user/%E2%82%AC',
      '/orders/user/%ZZ',
      '/orders/user/',
      `/orders/${'a'.repeat(64)}`,
      '/orders/export.csv',
      '/orders/user/u1/export.ndjson',
      '/stats',
      '/stats/series',
      '/intents/abc/events',
      '/relayer/claims',
      '/relayer/claims/abc',
      '/webhooks/w1/deliveries/d1/redeliver',
      '/webhooks/w1/rotate-secret',
      '/assets',
      '/chains',
      '/nothing',
      '',
      '/',
    ];
    for (const path of paths) {
      const found = matcher.matches(path).map((m) => ({ path: m.route.path, method: m.route.method, params: m.params }));
      expect(found, path).toEqual(byUrlPattern(routes, path));
    }
  });

  it('refuses a pattern whose syntax it cannot pre-check', () => {
    const route = { ...routes[0]!, path: '/orders/:id(\\d+)' };
    expect(() => routeMatcher([route])).toThrow(/syntax/);
  });
});
