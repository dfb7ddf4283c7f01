import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import pg from 'pg';
import { describe, expect } from 'vitest';
import { seed } from '../prisma/scripts/seed/index.ts';
import { loadConfig } from '../src/config.ts';
import { createFloor, FLOOR_DOCUMENTS, serviceCursor } from './bench/floor.ts';
import { it, type TestApp } from './support/app.ts';
import { TEST_DB } from './support/database.ts';

/**
 * The bench's floor (test/bench/floor.ts) must send byte for byte what the service sends for the same
 * request, or a ratio between them compares different work (test/bench/README.md, The floors). The floor runs on
 * PostgreSQL only (pg, SQL-built JSON), so this file does too.
 */
describe.skipIf(TEST_DB !== 'postgres')('the bench floor answers byte for byte as the service', () => {
  let pool: pg.Pool;
  let floor: Server;
  let floorBase: string;
  let users: string[];
  let cursors: string[];

  // The file's database, seeded before its app starts.
  it.beforeAll(async ({ db }) => {
    const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent' });
    // Few users, so pages are full; every status, so every intent column takes values and nulls.
    await seed({ db, config, orders: 160, users: 4, days: 20, seed: 'floor' });
    pool = new pg.Pool({ connectionString: db.url, max: 2 });
    floor = createFloor(pool);
    await new Promise<void>((resolve) => floor.listen(0, '127.0.0.1', resolve));
    floorBase = `http://127.0.0.1:${(floor.address() as AddressInfo).port}`;
    users = (await pool.query(`SELECT user_id FROM orders GROUP BY user_id ORDER BY user_id`)).rows.map((r) => r.user_id as string);
    const deep = (await pool.query(`SELECT created_at, id FROM orders ORDER BY created_at DESC, id DESC OFFSET 30 LIMIT 3`)).rows;
    // The second-to-last page holds fewer than 20 orders: a short page's cursor too.
    const last = (await pool.query(`SELECT created_at, id FROM orders ORDER BY created_at DESC, id DESC OFFSET 150 LIMIT 1`)).rows;
    cursors = [...deep, ...last].map((r) => serviceCursor(r.created_at as Date, r.id as string));
  }, 120_000);
  it.afterAll(async () => {
    await new Promise((resolve) => floor?.close(resolve));
    await pool?.end();
  });

  /** Where two bodies part, with context; undefined when they are the same bytes. */
  const difference = (ours: string, service: string) => {
    if (ours === service) return undefined;
    let i = 0;
    while (ours[i] === service[i]) i++;
    return { at: i, floor: ours.slice(Math.max(0, i - 80), i + 80), service: service.slice(Math.max(0, i - 80), i + 80) };
  };

  const bodies = async (t: TestApp, path: string, init?: RequestInit) => {
    const service = await t.app.fetch(`http://test${path}`, init ?? {});
    const ours = await fetch(`${floorBase}${path}`, init);
    expect(service.status).toBe(200);
    expect(ours.status).toBe(200);
    return [await service.text(), await ours.text()] as const;
  };
  const graphql = (t: TestApp, query: string, variables: Record<string, unknown>) =>
    bodies(t, '/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });

  it('REST user pages: full, partial, later pages and a user with none', async ({ t }) => {
    expect(users.length).toBe(4);
    const paths = [
      ...users.map((u) => `/orders/user/${encodeURIComponent(u)}?limit=20`),
      `/orders/user/${encodeURIComponent(users[0]!)}?limit=7&page=3`,
      `/orders/user/${encodeURIComponent(users[1]!)}?limit=100`,
      '/orders/user/nobody-at-all?limit=20',
    ];
    for (const path of paths) {
      const [service, ours] = await bodies(t, path);
      expect(difference(ours, service), path).toBeUndefined();
    }
    const [full] = await bodies(t, paths[0]!);
    expect(JSON.parse(full).result.data).toHaveLength(20);
  });

  it('GraphQL user pages with both intents', async ({ t }) => {
    for (const u of [...users, 'nobody-at-all']) {
      const [service, ours] = await graphql(t, FLOOR_DOCUMENTS.userPage, { u });
      expect(service).not.toContain('"errors"');
      expect(difference(ours, service), u).toBeUndefined();
    }
  });

  it('GraphQL keyset pages (ordersConnection), a short last page included', async ({ t }) => {
    for (const after of cursors) {
      const [service, ours] = await graphql(t, FLOOR_DOCUMENTS.keyset, { after });
      expect(service).not.toContain('"errors"');
      expect(difference(ours, service), after).toBeUndefined();
    }
  });
});
