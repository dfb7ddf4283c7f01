import autocannon from 'autocannon';
import { SECONDS } from './settings.ts';

/** Load on a server, and the figures it gives: rate, median and tail latency. */

export interface Figures {
  rps: number;
  p50: number;
  p99: number;
}

export type Request = autocannon.Request;
export const graphqlErrors: string[] = [];

/** A closed-loop load of `connections` for `seconds`, no warm-up; every answer must be 2xx. */
export async function loadFor(port: number, requests: Request[], connections: number, seconds: number): Promise<Figures> {
  const result = await autocannon({ url: `http://127.0.0.1:${port}`, connections, duration: seconds, requests });
  if (graphqlErrors.length > 0) throw new Error(`port ${port}: ${graphqlErrors.length} GraphQL errors, first: ${graphqlErrors[0]}`);
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(`port ${port} ${requests[0]?.path}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`);
  }
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

/** SECONDS of load after a 2 s warm-up. */
export async function load(port: number, requests: Request[], connections: number): Promise<Figures> {
  await loadFor(port, requests, connections, 2);
  return loadFor(port, requests, connections, SECONDS);
}

/** A server and the load it is measured with. */
export interface Target {
  port: number;
  requests: () => Request[];
}

/**
 * The service and the server its ratio is taken against, measured in turns: each warmed up for 2 s, then
 * SECONDS/2 each in the order service, other, other, service. Whatever else the machine does meanwhile (autovacuum,
 * a checkpoint, a neighbour) then falls on both alike, where one after the other it fell on whichever ran at the
 * time. Each side's rate is the mean of its two turns; p50 the mean, p99 the higher of its two.
 */
export async function inTurns(ours: Target, other: Target, connections: number): Promise<[Figures, Figures]> {
  const half = SECONDS / 2;
  const turn = (t: Target) => loadFor(t.port, t.requests(), connections, half);
  await loadFor(ours.port, ours.requests(), connections, 2);
  await loadFor(other.port, other.requests(), connections, 2);
  const a1 = await turn(ours);
  const b1 = await turn(other);
  const b2 = await turn(other);
  const a2 = await turn(ours);
  const both = (x: Figures, y: Figures): Figures => ({ rps: (x.rps + y.rps) / 2, p50: (x.p50 + y.p50) / 2, p99: Math.max(x.p99, y.p99) });
  return [both(a1, a2), both(b1, b2)];
}

/** One request at a time, `count` times, `gapMs` apart: latency of what a cache does not hide. */
export async function sequential(url: string, count: number, gapMs: number): Promise<Figures> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const reply = await fetch(url);
    if (!reply.ok) throw new Error(`${url}: ${reply.status} ${await reply.text()}`);
    await reply.arrayBuffer();
    const elapsed = performance.now() - started;
    times.push(elapsed);
    if (process.env.BENCH_TRACE) console.log(`    ${url}: ${elapsed.toFixed(1)} ms`);
    await new Promise((r) => setTimeout(r, gapMs));
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  return { rps: 1000 / (times.reduce((a, b) => a + b, 0) / times.length), p50: at(0.5), p99: at(0.99) };
}

export const get = (path: () => string): Request => ({ method: 'GET', path: path(), setupRequest: (req) => ({ ...req, path: path() }) });

export const graphql = (query: string, variables: () => Record<string, unknown>): Request => ({
  method: 'POST',
  path: '/graphql',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ query, variables: variables() }),
  setupRequest: (req) => ({ ...req, body: JSON.stringify({ query, variables: variables() }) }),
  // A GraphQL error comes with a 200: count it, and fail the measurement.
  onResponse: (status, body) => {
    if (status === 200 && body.includes('"errors"')) graphqlErrors.push(body.slice(0, 500));
  },
});

/** The body one request gets, as bytes (a sample for the report, and for the equal-bytes check). */
export async function sample(port: number, request: Request): Promise<string> {
  const init: RequestInit = { method: request.method, headers: request.headers as Record<string, string> };
  if (request.body) init.body = request.body as string;
  const reply = await fetch(`http://127.0.0.1:${port}${request.path}`, init);
  const text = await reply.text();
  if (!reply.ok) throw new Error(`${request.method} ${request.path} on ${port}: ${reply.status} ${text.slice(0, 300)}`);
  return text;
}
