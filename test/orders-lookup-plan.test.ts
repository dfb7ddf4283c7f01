import { describe, expect } from 'vitest';
import { seed } from '../prisma/scripts/seed/index.ts';
import { loadConfig } from '../src/config.ts';
import type { Database } from '../src/db/database.ts';
import { it, type TestApp } from './support/app.ts';

/**
 * The lookups are indexed reads, at any size of the book: on a seeded database (orders over several
 * monthly partitions, statistics analysed), every statement a lookup sends is planned without a
 * sequential scan of an orders or intents partition. The plans are read as the planner makes them, with
 * nothing disabled: enough rows that a scan would cost more than the indexes if the indexes were missing.
 */

const ORDERS = 20_000;
/** Rows from which a partition counts as filled: dozens of pages, where a scan would cost far more than an index. */
const FILLED = 2000;
const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent' });

interface Statement {
  sql: string;
  params: unknown[];
}

let captured: Statement[] | undefined;
/** The partitions holding at least FILLED rows: orders and intents of the months the seed filled. */
let filled: Set<string>;

it.override('appOptions', {
  onQuery: (sql, params) => captured?.push({ sql, params: JSON.parse(params || '[]') as unknown[] }),
});

// The file's database, seeded and analysed before its app reads it.
it.beforeAll(async ({ db }) => {
  await seed({ db, config, orders: ORDERS, users: 200, days: 90, seed: 'lookup-plan' });
  await db.prisma.$executeRawUnsafe('ANALYZE');
  const partitions = await db.prisma.$queryRawUnsafe<{ name: string }[]>(
    `SELECT tableoid::regclass::text AS name FROM orders GROUP BY 1 HAVING count(*) >= ${FILLED}
     UNION SELECT tableoid::regclass::text FROM intents GROUP BY 1 HAVING count(*) >= ${FILLED}`,
  );
  filled = new Set(partitions.map((row) => row.name));
  expect(filled.size).toBeGreaterThanOrEqual(4);
}, 300_000);

/** Every read the request sent, with its plan. */
async function plansOf(t: TestApp, db: Database, path: string): Promise<{ sql: string; plan: string }[]> {
  captured = [];
  const reply = await t.rest('GET', path);
  const statements = captured.filter((s) => /^\s*(SELECT|WITH)\b/i.test(s.sql));
  captured = undefined;
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  expect(reply.body.result.total).toBeGreaterThan(0);
  const plans = [];
  for (const { sql, params } of statements) {
    const rows = await db.prisma.$queryRawUnsafe<{ 'QUERY PLAN': string }[]>(`EXPLAIN ${sql}`, ...params);
    plans.push({ sql, plan: rows.map((row) => row['QUERY PLAN']).join('\n') });
  }
  return plans;
}

/**
 * No sequential scan of a partition that holds a real share of the book. The planner does scan the empty
 * ones (the months ahead, the default partition) and the seed's first, partly filled month: a few pages
 * read whole cost less than opening an index, and their cost does not grow with the book.
 */
function expectNoScanOfTheBook(plans: { sql: string; plan: string }[]) {
  expect(plans.length).toBeGreaterThan(0);
  for (const { sql, plan } of plans) {
    const scanned = [...plan.matchAll(/Seq Scan on (\w+)/g)].map((match) => match[1]!);
    expect(
      scanned.filter((table) => filled.has(table)),
      `${sql}\n${plan}`,
    ).toEqual([]);
  }
  expect(plans.map((p) => p.plan).join('\n')).toMatch(/Index (Only )?Scan|Bitmap Index Scan/);
}

describe('order lookups on a seeded book', () => {
  it('finds the orders of a transaction through the indexes', async ({ t, db }) => {
    const [claimed] = await db.prisma.$queryRawUnsafe<{ hash: string }[]>(
      'SELECT claim_tx_hash AS hash FROM intents WHERE claim_tx_hash IS NOT NULL LIMIT 1',
    );
    const plans = await plansOf(t, db, `/orders?tx_hash=${claimed!.hash.toUpperCase().replace('0X', '0x')}`);
    expectNoScanOfTheBook(plans);
    // The lookup itself combines the hash indexes of the partitions.
    expect(plans.map((p) => p.plan).join('\n')).toMatch(/intents_\w*tx_hash\w*/);
  });

  it('indexes only the hashes that are set, in every month', async ({ db }) => {
    // A new intent has no hash yet: an index of NULLs would cost every create entries no lookup reads.
    await db.prisma.$queryRawUnsafe("SELECT ensure_month_partitions(now() + interval '1 year', now() + interval '1 year')");
    const indexes = await db.prisma.$queryRawUnsafe<{ name: string; definition: string }[]>(
      `SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS definition
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_inherits h ON h.inhrelid = i.indrelid
       WHERE h.inhparent = 'intents'::regclass AND c.relname LIKE '%tx_hash%'`,
    );
    const partitions = await db.prisma.$queryRawUnsafe<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM pg_inherits WHERE inhparent = 'intents'::regclass`,
    );
    expect(indexes).toHaveLength(4 * partitions[0]!.n);
    for (const { name, definition } of indexes) expect(definition, name).toMatch(/WHERE \((\w+_tx_hash) IS NOT NULL\)$/);
  });

  it('finds the order of a swap id, and orders by ids, through the keys', async ({ t, db }) => {
    const [some] = await db.prisma.$queryRawUnsafe<{ swap_id: string; order_id: string }[]>(
      'SELECT swap_id, order_id FROM swap_keys ORDER BY swap_id LIMIT 1',
    );
    expectNoScanOfTheBook(
      await plansOf(
        t,
        db,
        `/orders?swap_id=${some!.swap_id}&status=${'pending,source_created,destination_created,destination_claimed,completed,refunding,cancelled,expired'}`,
      ),
    );
    const ids = await db.prisma.$queryRawUnsafe<{ id: string }[]>('SELECT order_id AS id FROM swap_keys ORDER BY swap_id DESC LIMIT 60');
    expectNoScanOfTheBook(await plansOf(t, db, `/orders?ids=${ids.map((row) => row.id).join(',')}&limit=10&page=2`));
  });
});
