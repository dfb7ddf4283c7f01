import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOne, freshDatabase, startServer, type ServerProcess } from './server.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function underWriteLoad(server: ServerProcess, stop: () => void, afterMs: number) {
  const figures = { attempts: 0, acknowledged: [] as string[], failed: 0, fiveXX: 0 };
  let running = true;
  const writer = async (n: number) => {
    while (running) {
      figures.attempts++;
      try {
        const id = await createOne(server.base, `writer-${n}`);
        if (id) figures.acknowledged.push(id);
        else figures.fiveXX++;
      } catch {
        figures.failed++; // connection cut: never acknowledged
        await sleep(20);
      }
    }
  };
  const writers = Array.from({ length: 6 }, (_, n) => writer(n));
  await sleep(afterMs);
  stop();
  await sleep(300);
  running = false;
  await Promise.all(writers);
  return figures;
}

async function checkNothingLost(url: string, base: string, acknowledged: string[]) {
  let missing = 0;
  for (const id of acknowledged) {
    const response = await fetch(`${base}/orders/${id}`);
    if (response.status !== 200) missing++;
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query<{ bad: number; dup: number }>(`
    SELECT (SELECT count(*)::int FROM orders o JOIN quotes q ON q.id = o.quote_id WHERE q.consumed_by IS DISTINCT FROM o.id) AS bad,
           (SELECT count(*)::int FROM (SELECT quote_id FROM orders GROUP BY quote_id HAVING count(*) > 1) d) AS dup`);
  await client.end();
  return { missing, quoteMismatches: rows[0]!.bad, quotesUsedTwice: rows[0]!.dup };
}

describe('crashes and restarts under a write load', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  const servers: ServerProcess[] = [];
  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.kill('SIGKILL')));
    await db?.drop();
  });

  it('kill -9: every acknowledged order survives, no quote is used twice', async () => {
    const first = await startServer({ DATABASE_URL: db.url });
    servers.push(first);
    const figures = await underWriteLoad(first, () => void first.kill('SIGKILL'), 3_000);
    expect(await first.exited).toBeNull();
    const second = await startServer({ DATABASE_URL: db.url });
    servers.push(second);
    const check = await checkNothingLost(db.url, second.base, figures.acknowledged);
    console.log('kill -9 figures', {
      attempts: figures.attempts,
      acknowledged: figures.acknowledged.length,
      cut: figures.failed,
      fiveXX: figures.fiveXX,
      ...check,
    });
    expect(figures.acknowledged.length).toBeGreaterThan(10);
    expect(check).toEqual({ missing: 0, quoteMismatches: 0, quotesUsedTwice: 0 });
    expect(figures.fiveXX).toBe(0);
  });

  it('SIGTERM: in-flight requests finish, the process exits 0, nothing acknowledged is lost', async () => {
    const server = await startServer({ DATABASE_URL: db.url });
    servers.push(server);
    const figures = await underWriteLoad(server, () => void server.kill('SIGTERM'), 2_000);
    expect(await server.exited).toBe(0);
    const after = await startServer({ DATABASE_URL: db.url });
    servers.push(after);
    const check = await checkNothingLost(db.url, after.base, figures.acknowledged);
    console.log('SIGTERM figures', {
      attempts: figures.attempts,
      acknowledged: figures.acknowledged.length,
      refused: figures.failed,
      fiveXX: figures.fiveXX,
      ...check,
    });
    expect(figures.fiveXX).toBe(0);
    expect(check).toEqual({ missing: 0, quoteMismatches: 0, quotesUsedTwice: 0 });
  });
});
