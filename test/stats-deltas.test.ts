import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { describe, expect } from 'vitest';
import type { PrismaClient } from '../src/generated/prisma/client.ts';
import { StatsKeeper } from '../src/db/stats-keeper.ts';
import { it, type TestApp } from './support/app.ts';
import { escrowEvent, postEvent } from './support/events.ts';
import { makeQuote, newSecret, orderBody } from './support/fixtures.ts';

/**
 * The triggers on `orders` append deltas and the stats keeper folds them (prisma/sql/stats-triggers.sql).
 * After creates and escrow events sent many at once, with keepers folding meanwhile, every rollup must equal
 * a recount from the orders: as the readers see it (the stats_*_live views, rollups plus unfolded deltas)
 * before a fold, and both ways after one.
 */

type Query = Pick<PrismaClient, '$queryRawUnsafe'>;

/** Each rollup: its key, its counted columns, the recount from `orders`, and how a rollup source is read. */
const ROLLUPS = {
  hourly: {
    key: ['hour', 'stage'],
    recount: `SELECT stats_hour(created_at) AS hour, stage, count(*) AS orders, sum(volume_usd) AS volume,
                count(completed_at) AS timed, sum(stats_completion_secs(created_at, completed_at)) AS secs
              FROM orders GROUP BY 1, 2`,
    rolled: (table: string) => `SELECT hour, stage, sum(orders) AS orders, sum(volume_usd) AS volume,
                sum(timed_orders) AS timed, sum(completion_secs) AS secs FROM ${table} GROUP BY 1, 2`,
    tables: ['stats_hourly', 'stats_hourly_live'],
    values: ['orders', 'volume', 'timed', 'secs'],
  },
  pairs: {
    key: ['source_chain', 'dest_chain'],
    recount: `SELECT source_chain, dest_chain, count(*) AS orders, sum(volume_usd) AS volume FROM orders GROUP BY 1, 2`,
    rolled: (table: string) =>
      `SELECT source_chain, dest_chain, sum(orders) AS orders, sum(volume_usd) AS volume FROM ${table} GROUP BY 1, 2`,
    tables: ['stats_pairs', 'stats_pairs_live'],
    values: ['orders', 'volume'],
  },
  assets: {
    key: ['asset'],
    recount: `SELECT source_asset AS asset, count(*) AS orders, sum(volume_usd) AS volume FROM orders GROUP BY 1`,
    rolled: (table: string) => `SELECT asset, sum(orders) AS orders, sum(volume_usd) AS volume FROM ${table} GROUP BY 1`,
    tables: ['stats_assets', 'stats_assets_live'],
    values: ['orders', 'volume'],
  },
  pending: {
    key: ['deadline_minute', 'created_minute'],
    recount: `SELECT stats_minute(deadline_at) AS deadline_minute, stats_minute(created_at) AS created_minute, count(*) AS orders
              FROM orders WHERE stage = 'pending' GROUP BY 1, 2`,
    rolled: (table: string) => `SELECT deadline_minute, created_minute, sum(orders) AS orders FROM ${table} GROUP BY 1, 2`,
    tables: ['stats_pending', 'stats_pending_live'],
    values: ['orders'],
  },
  users: {
    key: ['user_id'],
    recount: `SELECT user_id, max(created_at) AS latest FROM orders GROUP BY 1`,
    rolled: (table: string) => `SELECT user_id, max(last_order_at) AS latest FROM ${table} GROUP BY 1`,
    tables: ['stats_users', 'stats_users_live'],
    values: ['latest'],
  },
} as const;

/**
 * Every row where a rollup and the recount differ (a key missing on one side counts as zeros), by rollup:
 * all empty when they agree. `live`: as the readers see it; `folded`: the rollup tables alone.
 */
async function mismatches(db: Query, source: 'live' | 'folded'): Promise<Record<string, unknown[]>> {
  const found: Record<string, unknown[]> = {};
  for (const [name, r] of Object.entries(ROLLUPS)) {
    const zero = (side: string, v: string) => (v === 'latest' ? `${side}.${v}` : `coalesce(${side}.${v}, 0)`);
    const sql = `SELECT ${r.key.map((k) => `coalesce(r.${k}, s.${k})::text AS ${k}`).join(', ')},
        ${r.values.map((v) => `r.${v}::text AS recount_${v}, s.${v}::text AS rollup_${v}`).join(', ')}
      FROM (${r.recount}) AS r FULL JOIN (${r.rolled(r.tables[source === 'folded' ? 0 : 1])}) AS s USING (${r.key.join(', ')})
      WHERE (${r.values.map((v) => zero('r', v)).join(', ')}) IS DISTINCT FROM (${r.values.map((v) => zero('s', v)).join(', ')})`;
    found[name] = await db.$queryRawUnsafe<unknown[]>(sql);
  }
  return found;
}

const AGREE = Object.fromEntries(Object.keys(ROLLUPS).map((name) => [name, []]));

async function deltas(db: Query): Promise<number> {
  const [row] = await db.$queryRawUnsafe<[{ n: number }]>(`SELECT count(*)::int AS n FROM stats_deltas`);
  return row.n;
}

/** Runs the tasks with up to 12 in flight (the app's pool has 10 connections), in no set order. */
async function atOnce<T>(tasks: (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const lane = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: 12 }, lane));
  return results;
}

const PAIRS = [
  { source: 'bitcoin:btc', destination: 'ethereum:wbtc', amount: '10000000' },
  { source: 'ethereum:usdc', destination: 'base:usdc', amount: '2500000' },
];

/** An order through the API, with its secret; users repeat so that one user's orders race each other. */
async function create(t: TestApp, i: number) {
  const { secret, commitmentHash } = newSecret();
  const quote = await makeQuote(t, PAIRS[i % PAIRS.length]);
  const reply = await t.rest('POST', '/orders', orderBody(quote, { commitment_hash: commitmentHash }, `racer-${i % 7}`));
  if (reply.status !== 201) throw new Error(`order ${i}: ${reply.status} ${JSON.stringify(reply.body)}`);
  const order = reply.body.result;
  return { secret, src: order.source_intent.swap_id as string, dst: order.destination_intent.swap_id as string };
}

/** One order's escrow events in their order, ending completed, cancelled, or part way. */
async function play(t: TestApp, order: Awaited<ReturnType<typeof create>>, i: number) {
  const send = async (swapId: string, event: unknown) => {
    const reply = await postEvent(t, swapId, event);
    if (reply.status !== 200) throw new Error(`event on ${swapId}: ${reply.status} ${JSON.stringify(reply.body)}`);
  };
  await send(order.src, escrowEvent('create', 10 + i));
  if (i % 4 === 0) return;
  await send(order.dst, escrowEvent('create', 20 + i));
  if (i % 4 === 1) {
    await send(order.dst, escrowEvent('cancel', 30 + i));
    await send(order.src, escrowEvent('cancel', 40 + i));
  } else {
    await send(order.dst, escrowEvent('claim', 30 + i, { commitment: order.secret }));
    if (i % 4 === 2) await send(order.src, escrowEvent('claim', 40 + i, { commitment: order.secret }));
  }
}

/** The fold with one change: how a broken fold would lose or double-count deltas. */
async function brokenFold(from: string, to: string): Promise<string> {
  const source = await readFile(new URL('../prisma/sql/stats-triggers.sql', import.meta.url), 'utf8');
  const fold = source.slice(source.indexOf('CREATE OR REPLACE FUNCTION stats_fold()'));
  if (!fold.includes(from)) throw new Error(`the fold has no ${from}`);
  return fold.replace(from, to);
}

describe('statistics deltas folded by the keeper', () => {
  it('agree with a recount from the orders after concurrent creates, escrow events and folds', async ({ t, db }) => {
    const keepers = [0, 1].map(() => new StatsKeeper({ prisma: db.prisma, logger: t.logger, vacuumEvery: 3 }));
    const first = await atOnce(Array.from({ length: 20 }, (_, i) => () => create(t, i)));
    expect(await deltas(db.prisma)).toBeGreaterThan(0);
    expect(await mismatches(db.prisma, 'live')).toEqual(AGREE);

    // Events on those orders, new creates, and two keepers folding (as two instances would), all at once.
    let writing = true;
    const folding = keepers.map(async (keeper) => {
      let folds = 0;
      while (writing) {
        if ((await keeper.tick()).folded !== null) folds++;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return folds;
    });
    await atOnce<unknown>([
      ...first.map((order, i) => () => play(t, order, i)),
      ...Array.from({ length: 20 }, (_, i) => () => create(t, 20 + i)),
    ]).finally(() => (writing = false));
    const folds = await Promise.all(folding);
    expect(folds[0]! + folds[1]!).toBeGreaterThan(0);

    // The last writes' deltas unfolded, some folded before them.
    await Promise.all(first.slice(0, 6).map((_, i) => create(t, 40 + i)));
    expect(await deltas(db.prisma)).toBeGreaterThan(0);
    expect(await mismatches(db.prisma, 'live')).toEqual(AGREE);

    expect((await keepers[0]!.tick()).folded).toBeGreaterThan(0);
    expect(await deltas(db.prisma)).toBe(0);
    expect(await mismatches(db.prisma, 'folded')).toEqual(AGREE);
    expect(await mismatches(db.prisma, 'live')).toEqual(AGREE);
    // The book covers what the rollups count: several stages, completion times, both pairs.
    const [book] = await db.prisma.$queryRawUnsafe<[{ stages: number; timed: number; pairs: number }]>(
      `SELECT count(DISTINCT stage)::int AS stages, count(completed_at)::int AS timed, count(DISTINCT source_chain)::int AS pairs FROM orders`,
    );
    expect(book.stages).toBeGreaterThanOrEqual(4);
    expect(book.timed).toBeGreaterThan(0);
    expect(book.pairs).toBe(2);
  }, 120_000);

  it('vacuums after folding, and leaves an idle book alone', async ({ t, db }) => {
    const keeper = new StatsKeeper({ prisma: db.prisma, logger: t.logger, vacuumEvery: 2 });
    await create(t, 300);
    const first = await keeper.tick();
    expect(first.folded).toBeGreaterThan(0);
    expect(first.vacuumed).toBe(false);
    expect((await keeper.tick()).vacuumed).toBe(true);
    // Nothing written since: nothing folded, and no VACUUM (which would write WAL on an idle primary).
    const idle = [];
    for (let round = 0; round < 4; round++) idle.push(await keeper.tick());
    expect(idle).toEqual(Array(4).fill({ folded: 0, vacuumed: false }));
  });

  it('notices a fold that loses deltas or counts them twice', async ({ t, db }) => {
    await Promise.all([0, 1, 2, 3].map((i) => create(t, 100 + i)));
    const broken = {
      // Folds everything but deletes nothing: the deltas count in the rollups and again as deltas.
      double: await brokenFold('WITH d AS (DELETE FROM stats_deltas RETURNING *)', 'WITH d AS (SELECT * FROM stats_deltas)'),
      // Deletes every delta but folds all except one.
      lost: await brokenFold(
        'WITH d AS (DELETE FROM stats_deltas RETURNING *)',
        'WITH taken AS (DELETE FROM stats_deltas RETURNING *), d AS (SELECT * FROM taken OFFSET 1)',
      ),
    };
    for (const [name, fold] of Object.entries(broken)) {
      // In a transaction rolled back: the real fold and the deltas are as they were for the next case.
      const seen = await db.prisma
        .$transaction(async (tx) => {
          await tx.$executeRawUnsafe(fold);
          await tx.$queryRawUnsafe('SELECT stats_fold()');
          throw { mismatches: await mismatches(tx, 'live') };
        })
        .catch((thrown: { mismatches?: Record<string, unknown[]> }) => {
          if (!thrown.mismatches) throw thrown;
          return thrown.mismatches;
        });
      expect(
        Object.values(seen).some((rows) => rows.length > 0),
        name,
      ).toBe(true);
      expect(seen.hourly!.length, name).toBeGreaterThan(0);
    }
    expect(await deltas(db.prisma)).toBeGreaterThan(0);
    expect(await mismatches(db.prisma, 'live')).toEqual(AGREE);
  });

  it('lets a create through while an escrow event on the same hour and pair is still open (PostgreSQL)', async ({ t, db }) => {
    if (!db.url) return; // PGlite has one connection: nothing runs beside an open transaction.
    const order = await create(t, 200);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      // What an escrow event's transaction writes: its order's stage, which the rollups count by hour and pair.
      await client.query('BEGIN');
      await client.query(`UPDATE orders SET stage = 'source_created' WHERE source_swap_id = $1`, [order.src]);
      const created = await Promise.race([
        create(t, 201).then(() => 'created'),
        new Promise((resolve) => setTimeout(() => resolve('waited'), 5000)),
      ]);
      expect(created).toBe('created');
      await client.query('COMMIT');
    } finally {
      await client.end();
    }
    expect(await mismatches(db.prisma, 'live')).toEqual(AGREE);
  });
});
