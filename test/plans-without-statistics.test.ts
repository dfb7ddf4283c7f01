import { describe, expect } from 'vitest';
import { seed } from '../prisma/scripts/seed/index.ts';
import { loadConfig } from '../src/config.ts';
import type { Database } from '../src/db/database.ts';
import { it } from './support/app.ts';

/**
 * The pages keep their plans on a database the planner knows nothing about (a fresh install, a month's
 * partition autovacuum has not reached): with every statistic of orders and intents removed and the
 * prepared statements planned generically, as the service's prepared statements are, each intent is
 * still found by its key (BOTH_INTENTS in src/db/row-store.ts), never by a merge or hash join over whole
 * partitions on `created_at`.
 */

const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent' });

interface Statement {
  sql: string;
  params: unknown[];
}

let captured: Statement[] | undefined;
let prepared = 0;

it.override('appOptions', {
  onQuery: (sql, params) => captured?.push({ sql, params: JSON.parse(params || '[]') as unknown[] }),
});

it.beforeAll(async ({ db }) => {
  await seed({ db, config, orders: 6000, users: 30, days: 60, seed: 'no-statistics' });
}, 300_000);

/** The reads a request sent, each planned as if orders and intents had never been analyzed. */
async function plansWithoutStatistics(db: Database, send: () => Promise<void>): Promise<string[]> {
  captured = [];
  await send();
  const statements = captured.filter((s) => /^\s*(SELECT|WITH)\b/i.test(s.sql) && /\bintents\b/.test(s.sql));
  captured = undefined;
  expect(statements.length).toBeGreaterThan(0);
  const plans: string[] = [];
  const rollback = new Error('rollback');
  await db.prisma
    .$transaction(async (tx) => {
      // Catalog changes are transactional: the planner sees them here, and the rollback restores them.
      await tx.$executeRawUnsafe(
        `DELETE FROM pg_statistic WHERE starelid IN (SELECT oid FROM pg_class WHERE relname ~ '^(orders|intents)')`,
      );
      await tx.$executeRawUnsafe(`UPDATE pg_class SET reltuples = -1 WHERE relname ~ '^(orders|intents)'`);
      await tx.$executeRawUnsafe('SET LOCAL plan_cache_mode = force_generic_plan');
      for (const { sql, params } of statements) {
        const name = `unplanned_${++prepared}`;
        await tx.$executeRawUnsafe(`PREPARE ${name} AS ${sql}`);
        // EXECUTE takes its arguments as expressions: the captured values as literals.
        const args = params.map((value) => (value === null ? 'NULL' : `'${String(value).replaceAll("'", "''")}'`)).join(', ');
        const rows = await tx.$queryRawUnsafe<{ 'QUERY PLAN': string }[]>(`EXPLAIN EXECUTE ${name}${args ? `(${args})` : ''}`);
        plans.push(rows.map((row) => row['QUERY PLAN']).join('\n'));
        // Prepared statements outlive the rollback: the connection is the app's.
        await tx.$executeRawUnsafe(`DEALLOCATE ${name}`);
      }
      throw rollback;
    })
    .catch((error: unknown) => {
      if (error !== rollback) throw error;
    });
  return plans;
}

/** Each intent read by its key: an index scan of an intents primary key, and no join over whole partitions. */
function expectIntentsByKey(plans: string[]) {
  for (const plan of plans) {
    expect(plan, plan).toMatch(/Index (Only )?Scan using intents_\w+_pkey/);
    expect(plan, plan).not.toMatch(/Merge Join|Hash Join|Seq Scan on intents/);
  }
}

async function userWithOrders(db: Database): Promise<string> {
  const [row] = await db.prisma.$queryRawUnsafe<{ user_id: string }[]>(
    'SELECT user_id FROM orders GROUP BY user_id ORDER BY count(*) DESC LIMIT 1',
  );
  return row!.user_id;
}

describe('pages planned without statistics', () => {
  it('the REST user page finds each intent by its key', async ({ t, db }) => {
    const user = await userWithOrders(db);
    const plans = await plansWithoutStatistics(db, async () => {
      expect((await t.rest('GET', `/orders/user/${user}?limit=20`)).status).toBe(200);
    });
    expectIntentsByKey(plans);
  });

  it('the GraphQL user page and a keyset page find each intent by its key', async ({ t, db }) => {
    const user = await userWithOrders(db);
    const plans = await plansWithoutStatistics(db, async () => {
      const byUser = await t.gql(
        `query($u: String!) { ordersByUser(userId: $u, limit: 20) { data { orderId sourceIntent { amount } destinationIntent { amount } } } }`,
        { u: user },
      );
      expect(byUser.errors).toBeUndefined();
      const keyset = await t.gql(
        'query { ordersConnection(first: 20) { edges { node { orderId sourceIntent { amount } destinationIntent { amount } } } } }',
      );
      expect(keyset.errors).toBeUndefined();
    });
    expectIntentsByKey(plans);
  });
});
