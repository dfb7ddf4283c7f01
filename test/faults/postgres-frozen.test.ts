import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOne, privatePostgres, startServer, type ServerProcess } from './server.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** DATABASE_QUERY_TIMEOUT_MS's default is 6 s; a request may wait that long, plus scheduling. */
const BOUND_MS = 8_000;

/**
 * PostgreSQL alive but answering nothing (SIGSTOP on a cluster of the test's own: TCP connections
 * are accepted by the kernel, no byte comes back). Every request is answered within a bound, as
 * 503 with Retry-After where it needs the database; the service recovers when the database does.
 */
describe('PostgreSQL frozen under load', () => {
  let cluster: Awaited<ReturnType<typeof privatePostgres>>;
  let server: ServerProcess;
  beforeAll(async () => {
    cluster = await privatePostgres();
    server = await startServer({ DATABASE_URL: cluster.url });
  });
  afterAll(async () => {
    await server?.kill();
    cluster?.destroy();
  });

  it('answers every request within the bound, 503 + Retry-After while frozen, and recovers', async () => {
    const figures = { requests: 0, ok: 0, unavailable: 0, unavailableWithoutRetryAfter: 0, other: 0, transportErrors: 0, slowestMs: 0 };
    const acknowledged: string[] = [];
    let frozen = false;
    let running = true;
    const record = (response: Response, started: number) => {
      figures.requests++;
      figures.slowestMs = Math.max(figures.slowestMs, performance.now() - started);
      if (response.status < 400) figures.ok++;
      else if (response.status === 503) {
        figures.unavailable++;
        if (!response.headers.get('retry-after')) figures.unavailableWithoutRetryAfter++;
      } else figures.other++;
    };
    const reader = async (path: string) => {
      while (running) {
        const started = performance.now();
        try {
          const response = await fetch(`${server.base}${path}`, { signal: AbortSignal.timeout(BOUND_MS + 4_000) });
          await response.arrayBuffer();
          record(response, started);
        } catch {
          figures.transportErrors++;
        }
        await sleep(20);
      }
    };
    const writer = async (n: number) => {
      while (running) {
        try {
          const id = await createOne(server.base, `frozen-writer-${n}`);
          if (id) acknowledged.push(id);
        } catch {
          figures.transportErrors++;
        }
        if (frozen) await sleep(200);
      }
    };
    const load = [reader('/orders?limit=5'), reader('/orders?limit=5&status=pending'), reader('/ready'), writer(0), writer(1)];
    await sleep(1_000);

    const timeline: Record<string, number> = {};
    const frozenAt = performance.now();
    cluster.freeze();
    frozen = true;
    try {
      while (figures.unavailable === 0 && performance.now() - frozenAt < BOUND_MS + 2_000) await sleep(50);
      timeline.first503AfterFreezeMs = Math.round(performance.now() - frozenAt);
      const started = performance.now();
      const gql = await fetch(`${server.base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ orders(limit: 3) { total } }' }),
        signal: AbortSignal.timeout(BOUND_MS + 4_000),
      });
      const body = (await gql.json()) as { errors?: { extensions?: { code?: string } }[] };
      expect(body.errors?.[0]?.extensions?.code).toBe('UNAVAILABLE');
      expect(performance.now() - started).toBeLessThan(BOUND_MS);
      await sleep(Math.max(0, 10_000 - (performance.now() - frozenAt)));
    } finally {
      cluster.thaw();
      frozen = false;
    }
    const thawedAt = performance.now();
    for (;;) {
      const response = await fetch(`${server.base}/orders?limit=5`);
      if (response.status === 200) break;
      if (performance.now() - thawedAt > 15_000) break;
      await sleep(100);
    }
    timeline.recoveredAfterThawMs = Math.round(performance.now() - thawedAt);
    running = false;
    await Promise.all(load);

    let missing = 0;
    for (const id of acknowledged) if ((await fetch(`${server.base}/orders/${id}`)).status !== 200) missing++;
    console.log('postgres-frozen figures', {
      ...figures,
      slowestMs: Math.round(figures.slowestMs),
      acknowledged: acknowledged.length,
      missing,
      ...timeline,
    });

    expect(figures.unavailable).toBeGreaterThan(0);
    expect(figures.unavailableWithoutRetryAfter).toBe(0);
    expect(figures.other).toBe(0);
    expect(figures.transportErrors).toBe(0);
    expect(figures.slowestMs).toBeLessThan(BOUND_MS);
    expect(timeline.recoveredAfterThawMs).toBeLessThan(10_000);
    expect(missing).toBe(0);
    expect(server.child.exitCode).toBeNull();
  });
});
