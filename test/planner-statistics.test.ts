import pino from 'pino';
import { describe, expect } from 'vitest';
import { PlannerStatisticsKeeper } from '../src/db/planner-statistics.ts';
import { it, type TestApp } from './support/app.ts';
import { makeOrder } from './support/fixtures.ts';

/**
 * The planner statistics keeper (src/db/planner-statistics.ts): on a book that grows from empty, with no
 * autovacuum (PGlite has none; the test's PostgreSQL may run without it), creates stop reading whole tables
 * once the keeper has analyzed them. Without it, the plans each connection made while this month's partition
 * was empty stay: every order's foreign key check reads the whole partition of intents.
 */

interface Scans {
  seq: number;
  idx: number;
  inserted: number;
}

/**
 * A table's scan counters, once every connection has reported `inserted` rows: a PostgreSQL connection that
 * went idle reports its counters up to ten seconds later.
 */
async function scansOnceReported(t: TestApp, table: string, inserted: number): Promise<Scans> {
  for (const deadline = Date.now() + 40_000; ; ) {
    const [row] = await t.db.prisma.$queryRawUnsafe<{ seq: bigint; idx: bigint; inserted: bigint }[]>(
      `SELECT seq_scan AS seq, coalesce(idx_scan, 0) AS idx, n_tup_ins AS inserted FROM pg_stat_user_tables WHERE relname = $1`,
      table,
    );
    const scans = { seq: Number(row?.seq ?? 0), idx: Number(row?.idx ?? 0), inserted: Number(row?.inserted ?? 0) };
    if (scans.inserted >= inserted) return scans;
    if (Date.now() > deadline) throw new Error(`${table}: ${scans.inserted} of ${inserted} inserts reported`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const monthOf = (at: Date) => `intents_${at.getUTCFullYear()}_${String(at.getUTCMonth() + 1).padStart(2, '0')}`;

async function makeOrders(t: TestApp, count: number, concurrency = 4): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        await makeOrder(t, {}, `planner-${next % 7}`);
      }
    }),
  );
}

describe('planner statistics keeper', () => {
  it('analyzes the tables that grew, and creates then find intents by their key', { timeout: 120_000 }, async ({ t }) => {
    const partition = monthOf(t.clock.now());
    // Where the test's PostgreSQL runs autovacuum, it must not analyze these tables before the keeper does.
    for (const table of [partition, 'quotes', 'order_keys']) {
      await t.db.prisma.$executeRawUnsafe(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
    }
    await makeOrders(t, 150);
    await scansOnceReported(t, partition, 300);

    const analyzed = (await t.runtime.plannerStatistics.tick()).map((name) => name.split('.').pop());
    expect(analyzed).toEqual(expect.arrayContaining([partition, 'quotes', 'order_keys']));
    // Nothing grew since: the next round analyzes nothing.
    expect(await t.runtime.plannerStatistics.tick()).toEqual([]);

    const before = await scansOnceReported(t, partition, 300);
    await makeOrders(t, 20);
    const after = await scansOnceReported(t, partition, 340);
    // Each order's two intents checked through the index by the foreign keys, none by reading the partition.
    expect(after.seq - before.seq).toBe(0);
    expect(after.idx - before.idx).toBeGreaterThanOrEqual(40);
  });

  it('rests a table whose ANALYZE fails, longer after each failure, and goes on with the others', async ({ t }) => {
    // An expression index whose function refuses to run under ANALYZE: a real failure, every time.
    await t.db.prisma.$executeRawUnsafe(`CREATE FUNCTION refuses_analyze(v int) RETURNS int IMMUTABLE LANGUAGE plpgsql AS $$
      BEGIN
        IF current_query() ILIKE 'ANALYZE%' THEN RAISE EXCEPTION 'no statistics here'; END IF;
        RETURN v;
      END $$`);
    await t.db.prisma.$executeRawUnsafe('CREATE TABLE analyze_refused (v int)');
    await t.db.prisma.$executeRawUnsafe('CREATE INDEX ON analyze_refused (refuses_analyze(v))');
    await t.db.prisma.$executeRawUnsafe('ALTER TABLE analyze_refused SET (autovacuum_enabled = false)');
    await t.db.prisma.$executeRawUnsafe('CREATE TABLE analyze_allowed (v int)');
    await t.db.prisma.$executeRawUnsafe('ALTER TABLE analyze_allowed SET (autovacuum_enabled = false)');
    await t.db.prisma.$executeRawUnsafe('INSERT INTO analyze_refused SELECT g FROM generate_series(1, 200) AS g');
    await t.db.prisma.$executeRawUnsafe('INSERT INTO analyze_allowed SELECT g FROM generate_series(1, 200) AS g');
    const grown = async () => {
      for (const deadline = Date.now() + 40_000; Date.now() < deadline; ) {
        const rows = await t.db.prisma.$queryRawUnsafe<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM pg_stat_user_tables WHERE relname IN ('analyze_refused', 'analyze_allowed') AND n_mod_since_analyze >= 200`,
        );
        if (rows[0]!.n === 2) return;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      throw new Error('the inserts were not reported');
    };
    await grown();

    const warnings: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line).table) });
    let now = 1_000_000;
    const keeper = new PlannerStatisticsKeeper({ prisma: t.db.prisma, logger, intervalMs: 5_000, now: () => now });
    const names = (analyzed: string[]) => analyzed.map((name) => name.split('.').pop());
    const refused = (table: string | undefined) => table?.endsWith('.analyze_refused');

    expect(names(await keeper.tick())).toContain('analyze_allowed');
    expect(warnings.filter(refused)).toHaveLength(1);
    // Resting for the interval after its first failure, then for twice that after its second.
    now += 4_000;
    expect(names(await keeper.tick())).not.toContain('analyze_refused');
    expect(warnings.filter(refused)).toHaveLength(1);
    now += 2_000;
    await keeper.tick();
    expect(warnings.filter(refused)).toHaveLength(2);
    now += 9_000;
    await keeper.tick();
    expect(warnings.filter(refused)).toHaveLength(2);
    now += 2_000;
    await keeper.tick();
    expect(warnings.filter(refused)).toHaveLength(3);
  });

  it('analyzes a table again once it doubled, not at a tenth, VACUUM or not', { timeout: 120_000 }, async ({ t }) => {
    await t.db.prisma.$executeRawUnsafe('CREATE TABLE grows (v int)');
    await t.db.prisma.$executeRawUnsafe('ALTER TABLE grows SET (autovacuum_enabled = false)');
    let inserted = 0;
    // Inserts `rows` and waits until the statistics count them (a PostgreSQL connection reports when idle).
    const grow = async (rows: number) => {
      await t.db.prisma.$executeRawUnsafe(`INSERT INTO grows SELECT g FROM generate_series(1, ${rows}) AS g`);
      inserted += rows;
      for (const deadline = Date.now() + 40_000; ; ) {
        const [row] = await t.db.prisma.$queryRawUnsafe<{ n: number }[]>(
          `SELECT n_tup_ins::int AS n FROM pg_stat_user_tables WHERE relname = 'grows'`,
        );
        if ((row?.n ?? 0) >= inserted) return;
        if (Date.now() > deadline) throw new Error(`grows: ${inserted} inserts not reported`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    };
    const analyzedGrows = async () => (await t.runtime.plannerStatistics.tick()).some((name) => name.endsWith('.grows'));

    await grow(1_000);
    expect(await analyzedGrows()).toBe(true);
    // Half as many again: past autovacuum's threshold (50 rows and a tenth), short of the 1,000 it had.
    await grow(500);
    expect(await analyzedGrows()).toBe(false);
    // A VACUUM counts the 1,500 rows (reltuples) and leaves the 500 changes since the ANALYZE: the next 600 take
    // the changes past 50 and the 1,000 the table had when analyzed.
    await t.db.prisma.$executeRawUnsafe('VACUUM grows');
    await grow(600);
    expect(await analyzedGrows()).toBe(true);
    expect(await analyzedGrows()).toBe(false);
  });
});
