import { useEffect, useState } from 'preact/hooks';

/** The explorer's own paths; the server answers each with the same page (src/explorer/serve.ts). */
export const BASE = '/explorer';

export type Route =
  | { view: 'home'; search: string | undefined }
  | { view: 'order'; orderId: string }
  | { view: 'user'; userId: string; page: number; limit: number }
  | { view: 'tx'; hash: string }
  | { view: 'missing' };

export const orderPath = (orderId: string) => `${BASE}/orders/${encodeURIComponent(orderId)}`;
export const txPath = (hash: string) => `${BASE}/tx/${encodeURIComponent(hash)}`;
export const searchPath = (term: string) => `${BASE}?q=${encodeURIComponent(term)}`;
export function userPath(userId: string, page = 1, limit = DEFAULT_LIMIT): string {
  const query = new URLSearchParams();
  if (page !== 1) query.set('page', String(page));
  if (limit !== DEFAULT_LIMIT) query.set('limit', String(limit));
  const text = query.toString();
  const rest = text ? `?${text}` : '';
  return `${BASE}/users/${encodeURIComponent(userId)}${rest}`;
}

const DEFAULT_LIMIT = 20;

/** A positive whole number from the query string, within the API's bounds, or the default. */
function count(value: string | null, fallback: number, max: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 && n <= max ? n : fallback;
}

function decode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

export function parseRoute(pathname: string, search: string): Route {
  const query = new URLSearchParams(search);
  if (pathname === BASE || pathname === `${BASE}/`) return { view: 'home', search: query.get('q') ?? undefined };
  const match = /^\/explorer\/(orders|users|tx)\/([^/]+)$/.exec(pathname);
  const value = match ? decode(match[2]!) : undefined;
  if (!match || !value) return { view: 'missing' };
  if (match[1] === 'orders') return { view: 'order', orderId: value };
  if (match[1] === 'tx') return { view: 'tx', hash: value };
  return {
    view: 'user',
    userId: value,
    page: count(query.get('page'), 1, 999_999_999),
    limit: count(query.get('limit'), DEFAULT_LIMIT, 100),
  };
}

const listeners = new Set<() => void>();

/** Moves to another view without loading the page again. */
export function navigate(href: string): void {
  history.pushState(null, '', href);
  for (const listener of listeners) listener();
}

/** The current route; changes on navigate() and on the browser's back and forward buttons. */
export function useRoute(): Route {
  const read = () => parseRoute(location.pathname, location.search);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const update = () => setRoute(read());
    listeners.add(update);
    addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      removeEventListener('popstate', update);
    };
  }, []);
  return route;
}
