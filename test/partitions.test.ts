import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pino from 'pino';
import { describe, expect } from 'vitest';
import { openPostgres } from '../src/db/database.ts';
import { applyMigrations, MIGRATIONS_DIR } from '../src/db/migrate.ts';
import { recordEscrowEvent } from '../src/domain/escrow-events.ts';
import { PartitionKeeper } from '../src/db/partitions.ts';
import { it, type Json, type TestApp } from './support/app.ts';
import { TEST_DB } from './support/database.ts';
import { escrowEvent, postEvent } from './support/events.ts';
import { makeOrder, makeQuote, newSecret, orderBody } from './support/fixtures.ts';

/** orders and intents are partitioned by month on created_at (README, Deployment: Data that grows). */

const DAY = 86_400;

/** The partition a row of this instant belongs in: orders_2026_11 for November 2026 (UTC). */
function monthOf(parent: string, at: Date): string {
  return `${parent}_${at.getUTCFullYear()}_${String(at.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** The first instant of the month `months` after this one (UTC). */
function monthStart(at: Date, months: number): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + months, 1));
}

async function partitionOf(t: TestApp, table: 'orders' | 'intents', column: string, value: string): Promise<string | undefined> {
  const rows = await t.db.prisma.$queryRawUnsafe<{ partition: string }[]>(
    `SELECT tableoid::regclass::text AS partition FROM ${table} WHERE ${column} = $1`,
    value,
  );
  return rows[0]?.partition;
}

async function exists(t: TestApp, table: string): Promise<boolean> {
  const [row] = await t.db.prisma.$queryRawUnsafe<{ found: boolean }[]>(`SELECT to_regclass($1) IS NOT NULL AS found`, table);
  return row!.found;
}

/** Runs `make` with the test clock moved to `at`, then moves it back. */
async function at<T>(t: TestApp, when: Date, make: () => Promise<T>): Promise<T> {
  const offset = Math.round((when.getTime() - t.clock.now().getTime()) / 1000);
  t.clock.advance(offset);
  try {
    return await make();
  } finally {
    t.clock.advance(-offset);
  }
}

describe('monthly partitions', () => {
  it('writes an order and its intents into the partition of their month', async ({ t }) => {
    const order: Json = await makeOrder(t);
    const month = monthOf('orders', new Date(order.created_at));
    expect(await partitionOf(t, 'orders', 'id', order.order_id)).toBe(month);
    expect(await partitionOf(t, 'intents', 'swap_id', order.source_intent.swap_id)).toBe(monthOf('intents', new Date(order.created_at)));
    expect(await partitionOf(t, 'intents', 'swap_id', order.destination_intent.swap_id)).toBe(
      monthOf('intents', new Date(order.created_at)),
    );
    // Read back through every path: by id, the user's page, the list.
    expect((await t.rest('GET', `/orders/${order.order_id}`)).status).toBe(200);
    const page = await t.rest('GET', '/orders/user/user-1');
    expect(page.body.result.data.map((o: Json) => o.order_id)).toContain(order.order_id);
  });

  it('keeps an order id, quote, commitment and swap ids unique across months', async ({ t }) => {
    const { commitmentHash } = newSecret();
    const nextMonth = new Date(monthStart(t.clock.now(), 1).getTime() + 3 * DAY * 1000);
    const later: Json = await at(t, nextMonth, async () => {
      const quote = await makeQuote(t);
      const reply = await t.rest('POST', '/orders', orderBody(quote, { commitment_hash: commitmentHash }));
      expect(reply.status).toBe(201);
      return reply.body.result;
    });
    expect(await partitionOf(t, 'orders', 'id', later.order_id)).toBe(monthOf('orders', nextMonth));

    // Now, in this month's partition: the same commitment (hence the same swap ids) is refused although
    // no index of either partition sees both rows.
    const quote = await makeQuote(t);
    const reused = await t.rest('POST', '/orders', orderBody(quote, { commitment_hash: commitmentHash }));
    expect(reused.status).toBe(409);
    expect(reused.body.result).toContain('commitment_hash');
    // Nothing of the refused order was kept, and its quote is still free.
    expect((await t.rest('POST', '/orders', orderBody(quote))).status).toBe(201);
  });

  it('never changes an order created_at, quote, commitment or swap ids', async ({ t }) => {
    const order: Json = await makeOrder(t);
    for (const change of [
      `created_at = created_at - interval '40 days'`,
      `commitment_hash = 'ff' || substr(commitment_hash, 3)`,
      `quote_id = 'another'`,
      `source_swap_id = destination_swap_id`,
    ]) {
      await expect(t.db.prisma.$executeRawUnsafe(`UPDATE orders SET ${change} WHERE id = $1`, order.order_id)).rejects.toThrow(
        /never change/,
      );
    }
    // Other columns change as always.
    await t.db.prisma.$executeRawUnsafe(`UPDATE orders SET updated_at = now() WHERE id = $1`, order.order_id);
  });

  it('makes the months ahead, and leaves a month whose rows sit in the default partition', async ({ t }) => {
    const keeper = new PartitionKeeper({ prisma: t.db.prisma, logger: pino({ level: 'silent' }), monthsAhead: 7 });
    const now = new Date();
    // An order five months ahead (a clock far off) lands in the default partition, never refused.
    const farMonth = new Date(monthStart(now, 5).getTime() + 2 * DAY * 1000);
    const far: Json = await at(t, farMonth, () => makeOrder(t));
    expect(await partitionOf(t, 'orders', 'id', far.order_id)).toBe('orders_default');

    const made = await keeper.tick();
    expect(made.defaultRows).toBe(true);
    for (let months = 0; months <= 7; months++) {
      const month = monthStart(now, months);
      const expected = months !== 5;
      expect(await exists(t, monthOf('orders', month)), monthOf('orders', month)).toBe(expected);
      expect(await exists(t, monthOf('intents', month)), monthOf('intents', month)).toBe(expected);
    }
    // Nothing more to make: a second round makes none.
    expect((await keeper.tick()).made).toBe(0);
    // The far order reads as any other.
    expect((await t.rest('GET', `/orders/${far.order_id}`)).status).toBe(200);
  });

  it('archives a month: its orders go, statistics and keys stay', async ({ t, clock }) => {
    // Five months back, whose partition the seed or an operator made: the keeper only makes months ahead.
    const old = new Date(monthStart(new Date(), -5).getTime() + 10 * DAY * 1000);
    await t.db.prisma.$queryRaw`SELECT ensure_month_partitions(${old}, ${old})`;
    const { commitmentHash } = newSecret();
    const archived: Json = await at(t, old, async () => {
      const quote = await makeQuote(t);
      const reply = await t.rest('POST', '/orders', orderBody(quote, { commitment_hash: commitmentHash }, 'archived-user'));
      expect(reply.status).toBe(201);
      return reply.body.result;
    });
    const orders = monthOf('orders', old);
    const intents = monthOf('intents', old);
    expect(await partitionOf(t, 'orders', 'id', archived.order_id)).toBe(orders);
    const statsBefore = (await t.rest('GET', '/stats')).body.result.all_time;

    // The archive path of README, Deployment: each month table is detached, copied elsewhere (pg_dump) and
    // dropped; orders first, whose detached table still references the intents.
    await t.db.prisma.$executeRawUnsafe(`ALTER TABLE orders DETACH PARTITION ${orders}`);
    await t.db.prisma.$executeRawUnsafe(`DROP TABLE ${orders}`);
    await t.db.prisma.$executeRawUnsafe(`ALTER TABLE intents DETACH PARTITION ${intents}`);
    await t.db.prisma.$executeRawUnsafe(`DROP TABLE ${intents}`);

    expect((await t.rest('GET', `/orders/${archived.order_id}`)).status).toBe(404);
    expect((await t.rest('GET', '/orders/user/archived-user')).body.result.total).toBe(0);
    expect((await postEvent(t, archived.source_intent.swap_id, escrowEvent('create', 1))).status).toBe(404);
    // The rollups counted the order when it was made and are not told of the archive.
    clock.advance(t.config.statsCacheSeconds + 1);
    expect((await t.rest('GET', '/stats')).body.result.all_time).toEqual(statsBefore);
    // Its keys stay: the commitment cannot be taken again.
    const quote = await makeQuote(t);
    expect((await t.rest('POST', '/orders', orderBody(quote, { commitment_hash: commitmentHash }))).status).toBe(409);
  });
});

// A database whose default time zone is not UTC (initdb copies the host's zone, or ALTER DATABASE ... SET timezone).
describe.runIf(TEST_DB === 'postgres')('on a database whose time zone is not UTC', () => {
  it('runs its sessions in UTC: times read back unshifted, and an escrow event finds its order', async ({ t }) => {
    const order: Json = await makeOrder(t);
    const url = (t.db as { url?: string }).url!;
    const database = new URL(url).pathname.slice(1);
    await t.db.prisma.$executeRawUnsafe(`ALTER DATABASE "${database}" SET timezone TO 'Asia/Kolkata'`);
    // New sessions would take the database's zone; the service's pools set their own.
    const elsewhere = await openPostgres({ url });
    try {
      const [{ zone }] = await elsewhere.prisma.$queryRaw<[{ zone: string }]>`SELECT current_setting('TimeZone') AS zone`;
      expect(zone).toBe('UTC');
      const read = await elsewhere.prisma.order.findUniqueOrThrow({ where: { id: order.order_id } });
      expect(read.createdAt.toISOString().replace('.000Z', 'Z')).toBe(order.created_at);
      const event = { kind: 'create' as const, txHash: `0x${'ab'.repeat(32)}`, blockNumber: 7n, timestamp: new Date() };
      const recorded = await recordEscrowEvent(
        { ...t.runtime.deps, quotes: elsewhere.rows, escrow: elsewhere.escrow, claims: elsewhere.claims },
        order.source_intent.swap_id,
        event,
      );
      expect(recorded).toEqual({ orderId: order.order_id, changed: true });
    } finally {
      await elsewhere.close();
    }
  });
});

// Its own in-memory database: once, in the PGlite project.
describe.runIf(TEST_DB === 'pglite')('the partitioning migration', () => {
  it('moves the orders already there into their months, with their keys and statistics', async () => {
    // Every migration before the partitioning one, then orders written the old way, then the rest.
    const names = (await readdir(MIGRATIONS_DIR, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
    const partitioning = names.find((name) => name.endsWith('_monthly_partitions'))!;
    const before = await mkdtemp(join(tmpdir(), 'obg-migrations-'));
    const pglite = new PGlite();
    try {
      for (const name of names.filter((n) => n < partitioning))
        await cp(join(MIGRATIONS_DIR, name), join(before, name), { recursive: true });
      const target = {
        exec: async (sql: string) => void (await pglite.exec(sql)),
        query: async <T>(sql: string, params?: unknown[]) => (await pglite.query<T>(sql, params)).rows,
      };
      await applyMigrations(target, before);
      const months = ['2026-03-15T10:00:00Z', '2026-04-02T00:00:00Z', '2026-04-30T23:59:59Z'];
      for (const [i, createdAt] of months.entries()) {
        await pglite.query(
          `INSERT INTO quotes (id, source_asset, source_amount, dest_asset, dest_amount, source_token_price, dest_token_price, fee_bips, solver, expires_at, consumed_by)
           VALUES ($1, 'a', 1, 'b', 1, 1, 1, 0, '{}', $2, $3)`,
          [`q${i}`, createdAt, `o${i}`],
        );
        for (const side of ['source', 'destination']) {
          await pglite.query(
            `INSERT INTO intents (swap_id, side, chain, asset, token_address, creator, recipient, amount, commitment_hash, cancel_after, created_at, updated_at)
             VALUES ($1, $2, 'c', 'a', 't', 'x', 'y', 1, $3, 0, $4, $4)`,
            [`${side}${i}`, side, `h${i}`, createdAt],
          );
        }
        await pglite.query(
          `INSERT INTO orders (id, user_id, quote_id, source_token_price, dest_token_price, fee_bips, commitment_hash, request_hash,
             deadline_at, dest_expires_at, source_chain, dest_chain, source_asset, dest_asset, volume_usd, source_swap_id,
             destination_swap_id, created_at, updated_at)
           VALUES ($1, 'u', $2, 1, 1, 0, $3, 'r', $4, $4, 'c', 'd', 'a', 'b', 5, $5, $6, $4, $4)`,
          [`o${i}`, `q${i}`, `h${i}`, createdAt, `source${i}`, `destination${i}`],
        );
      }
      const stats = async () => (await pglite.query(`SELECT * FROM stats_hourly ORDER BY hour, stage`)).rows;
      const statsBefore = await stats();
      expect(statsBefore.length).toBeGreaterThan(0);

      expect(await applyMigrations(target)).toEqual(names.filter((n) => n >= partitioning).sort());
      const placed = await pglite.query<{ id: string; partition: string }>(
        `SELECT id, tableoid::regclass::text AS partition FROM orders ORDER BY id`,
      );
      expect(placed.rows).toEqual([
        { id: 'o0', partition: 'orders_2026_03' },
        { id: 'o1', partition: 'orders_2026_04' },
        { id: 'o2', partition: 'orders_2026_04' },
      ]);
      const intents = await pglite.query<{ partition: string }>(
        `SELECT DISTINCT tableoid::regclass::text AS partition FROM intents ORDER BY 1`,
      );
      expect(intents.rows.map((r) => r.partition)).toEqual(['intents_2026_03', 'intents_2026_04']);
      expect((await pglite.query(`SELECT id, quote_id, commitment_hash FROM order_keys ORDER BY id`)).rows).toEqual([
        { id: 'o0', quote_id: 'q0', commitment_hash: 'h0' },
        { id: 'o1', quote_id: 'q1', commitment_hash: 'h1' },
        { id: 'o2', quote_id: 'q2', commitment_hash: 'h2' },
      ]);
      expect((await pglite.query(`SELECT count(*)::int AS n FROM swap_keys`)).rows).toEqual([{ n: 6 }]);
      // Copied, not counted again.
      expect(await stats()).toEqual(statsBefore);
    } finally {
      await pglite.close();
      await rm(before, { recursive: true, force: true });
    }
  });
});
