import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, startPostgres, startServer, stopPostgres, type ServerProcess } from './server.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('PostgreSQL stopped under load', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let server: ServerProcess;
  beforeAll(async () => {
    db = await freshDatabase();
    server = await startServer({ DATABASE_URL: db.url });
  });
  afterAll(async () => {
    await server?.kill('SIGKILL');
    startPostgres();
    await db?.drop();
  });

  it('answers 503 + Retry-After within seconds, never hangs, stays up, and recovers by itself', async () => {
    const figures = { attempts: 0, ok: 0, unavailable: 0, other5xx: 0, transportErrors: 0, slowestMs: 0 };
    const timeline: Record<string, number> = {};
    let running = true;
    const reader = async () => {
      while (running) {
        const started = performance.now();
        try {
          const response = await fetch(`${server.base}/orders?limit=5`, { signal: AbortSignal.timeout(8_000) });
          await response.arrayBuffer();
          figures.attempts++;
          if (response.status === 200) figures.ok++;
          else if (response.status === 503 && response.headers.get('retry-after')) figures.unavailable++;
          else if (response.status >= 500) figures.other5xx++;
        } catch {
          figures.transportErrors++;
        }
        figures.slowestMs = Math.max(figures.slowestMs, performance.now() - started);
        await sleep(20);
      }
    };
    const readers = Array.from({ length: 4 }, reader);
    const quoteBody = JSON.stringify({ source: { asset: 'bitcoin:btc', amount: '10000000' }, destination: { asset: 'ethereum:wbtc' } });
    const post = (path: string, body: string) =>
      fetch(`${server.base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        signal: AbortSignal.timeout(8_000),
      });
    // A quote before the stop: the instance has read its signing key.
    expect((await post('/quotes', quoteBody)).status).toBe(201);
    await sleep(1_000);

    const stoppedAt = performance.now();
    stopPostgres();
    try {
      while (figures.unavailable === 0 && performance.now() - stoppedAt < 10_000) await sleep(50);
      timeline.first503AfterStopMs = Math.round(performance.now() - stoppedAt);
      const ready = await fetch(`${server.base}/ready`, { signal: AbortSignal.timeout(8_000) });
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ status: 'Error', result: 'not ready: database unreachable' });
      // A quote is signed, not stored: it is made without the database. Its order needs the database.
      const quote = await post('/quotes', quoteBody);
      expect(quote.status).toBe(201);
      const { result } = (await quote.json()) as { result: { quote_id: string; destination: { amount: string } } };
      const write = await post(
        '/orders',
        JSON.stringify({
          user_id: 'down',
          quote_id: result.quote_id,
          source: { asset: 'bitcoin:btc', recipient: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', amount: '10000000' },
          destination: {
            asset: 'ethereum:wbtc',
            recipient: '0x4c1a6f5963Caa654d1D7C6D76F9d34aE10C86cb3',
            amount: result.destination.amount,
          },
          commitment_hash: 'ab'.repeat(32),
        }),
      );
      expect(write.status).toBe(503);
      expect(write.headers.get('retry-after')).toBeTruthy();
      await sleep(2_000);
    } finally {
      startPostgres();
    }
    const restartedAt = performance.now();
    for (;;) {
      const okNow = figures.ok;
      await sleep(100);
      if (figures.ok > okNow) break;
      if (performance.now() - restartedAt > 15_000) break;
    }
    timeline.recoveredAfterStartMs = Math.round(performance.now() - restartedAt);
    running = false;
    await Promise.all(readers);
    console.log('postgres-down figures', { ...figures, slowestMs: Math.round(figures.slowestMs), ...timeline });

    expect(timeline.first503AfterStopMs).toBeLessThan(5_000);
    expect(timeline.recoveredAfterStartMs).toBeLessThan(10_000);
    expect(figures.other5xx).toBe(0);
    expect(figures.transportErrors).toBe(0);
    expect(figures.slowestMs).toBeLessThan(6_000);
    expect(server.child.exitCode).toBeNull();
    expect((await fetch(`${server.base}/ready`)).status).toBe(200);
  });
});
