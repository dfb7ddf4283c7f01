import { existsSync } from 'node:fs';
import { get } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { openTestDatabase, TEST_DB } from './support/database.ts';
import { startServer, type ServerProcess } from './support/server-process.ts';

/** One request on a connection of its own (no keep-alive), so the cluster can hand it to any worker. */
function getOnNewConnection(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    }).on('error', reject);
  });
}

const pidsOf = (output: string, msg: string) =>
  new Set(
    output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { pid?: number; msg?: string })
      .filter((line) => line.msg?.startsWith(msg) && line.pid !== undefined)
      .map((line) => line.pid!),
  );

describe('WORKERS: several worker processes behind one port (src/cluster.ts)', () => {
  it('refuses more than one worker on embedded PGlite, whose data directory is single-process', async () => {
    expect(() => loadConfig({ WORKERS: '2' })).toThrow(ConfigError);
    expect(() => loadConfig({ WORKERS: '2' })).toThrow(/WORKERS: more than one worker needs DATABASE_URL/);
    // With replicas, who wrote lately must be shared: Redis, or every worker reads its own writes only.
    const replicated = { WORKERS: '2', DATABASE_URL: 'postgresql://a/b', DATABASE_REPLICA_URL: 'postgresql://c/b' };
    expect(() => loadConfig(replicated)).toThrow(/WORKERS: more than one worker with DATABASE_REPLICA_URL needs REDIS_URL/);
    expect(loadConfig({ ...replicated, REDIS_URL: 'redis://127.0.0.1:6379' }).workers).toBe(2);
    expect(() => loadConfig({ WORKERS: '0' })).toThrow(/WORKERS: must be at least 1/);
    expect(loadConfig({ WORKERS: '2', DATABASE_URL: 'postgresql://x@127.0.0.1/db' }).workers).toBe(2);
    expect(loadConfig({}).workers).toBe(1);
    // npm start says so and exits 2, as for every configuration error.
    const started = startServer({ WORKERS: '2', DATABASE_URL: '', DATA_DIR: '/nonexistent' });
    await expect(started).rejects.toThrow(/WORKERS: more than one worker needs DATABASE_URL/);
  });

  describe.skipIf(TEST_DB !== 'postgres')('on PostgreSQL', () => {
    let server: ServerProcess | undefined;
    let db: Awaited<ReturnType<typeof openTestDatabase>> | undefined;
    afterAll(async () => {
      await server?.kill();
      await db?.close();
    });

    it('two workers answer on one port, each its own process, and SIGTERM stops them all', async () => {
      db = await openTestDatabase();
      server = await startServer({ WORKERS: '2', DATABASE_URL: db.url!, LOG_LEVEL: 'info', NODE_ENV: 'production' });
      // Both workers listen (each logs it with its pid), neither is the primary.
      const deadline = Date.now() + 30_000;
      while (pidsOf(server.output(), 'order book listening').size < 2 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
      }
      // Every request is logged by the worker that answered it, with its pid.
      for (let i = 0; i < 20; i++) expect(await getOnNewConnection(`${server.base}/health`)).toBe(200);
      const output = server.output();
      const listening = [...pidsOf(output, 'order book listening')].filter(Boolean);
      expect(listening).toHaveLength(2);
      expect(listening).not.toContain(server.child.pid);
      const answered = pidsOf(output, 'request');
      expect([...answered].sort()).toEqual([...listening].sort());

      await server.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      for (const pid of listening) expect(existsSync(`/proc/${pid}`), `worker ${pid} still runs`).toBe(false);
      expect(pidsOf(server.output(), 'stopped').size).toBe(2);
    }, 90_000);
  });
});
