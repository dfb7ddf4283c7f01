import type { Json } from '../../support/app.ts';

export { cloneTemplate as cloneDatabase } from '../../support/database.ts';
export { startServer, type ServerProcess } from '../../support/server-process.ts';

export async function api(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) };
  } catch {
    return { status: response.status, body: text };
  }
}

/** Polls until `check` returns a value, or fails after `timeoutMs` with the last seen state. */
export async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 20_000, everyMs = 25): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
