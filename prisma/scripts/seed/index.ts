/**
 * `npm run seed`: fills a database with a realistic spread of orders in every status
 * (src/domain/status/rule.ts), through the domain rules (quote, order, escrow events) as the product itself would
 * produce them, each at its own past time on a controlled clock.
 *
 *   npm run seed -- [--orders 200] [--users 40] [--days 10] [--seed orderbook] [--mode bulk|domain]   (cli.ts)
 *
 * The plan (pairs, amounts, users, addresses, times, statuses) is a pure function of the options, the
 * registry, the configuration and the start time. Secrets and transaction hashes are truly random, as a
 * wallet and a chain make them, so running the seeder again adds orders instead of colliding.
 */

import type { Config } from '../../../src/config.ts';
import type { Database } from '../../../src/db/database.ts';
import { ORDER_STATUSES, type OrderStatus, STATUS_BUCKET, statusAt, statusWhere } from '../../../src/domain/status/rule.ts';
import { createLogger } from '../../../src/logger.ts';
import { createRuntime } from '../../../src/runtime.ts';
import { seedInBulk } from './bulk.ts';
import { seedThroughDomain } from './domain.ts';
import { type PlanOptions, planSeed } from './plan.ts';
import type { SeedClock, Seeded } from './requests.ts';

// What the tests read besides seed(): the plan alone, the address encoder, which address a chain takes.
export { segwitV0Address } from './bech32.ts';
export { type Plan, planSeed } from './plan.ts';
export { addressOn } from './users.ts';

export interface SeedOptions extends PlanOptions {
  db: Database;
  config: Config;
  /** Progress and summary lines. */
  log?: (line: string) => void;
  /** The present the plan is relative to (default: the real clock). */
  now?: () => Date;
  /**
   * `bulk` (default) builds the rows the domain would write, with the domain's own functions, and
   * sends them in batches of array inserts: a million orders in minutes. `domain` makes every quote,
   * order and escrow event through the domain calls, one by one, as the API would.
   */
  mode?: 'bulk' | 'domain';
}

export interface SeedResult {
  /** Orders created by this run. */
  orders: number;
  users: number;
  orderIds: string[];
  /** Status of the seeded orders when seeding ended, read back from the database. */
  byStatus: Record<OrderStatus, number>;
  /** Seeded orders whose status read back differs from the planned one (0 unless something is wrong). */
  mismatches: number;
  /** Escrow events recorded. */
  events: number;
  elapsedMs: number;
}

export const SEED_DEFAULTS = { orders: 200, users: 40, days: 10, seed: 'orderbook' } as const;

function emptyCounts(): Record<OrderStatus, number> {
  return Object.fromEntries(ORDER_STATUSES.map((s) => [s, 0])) as Record<OrderStatus, number>;
}

export async function seed(options: SeedOptions): Promise<SeedResult> {
  const { db, config } = options;
  const log = options.log ?? (() => undefined);
  for (const [name, value] of [
    ['orders', options.orders],
    ['users', options.users],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  }
  if (!Number.isFinite(options.days) || options.days <= 0) throw new Error('days must be a positive number');

  const realNow = options.now ?? (() => new Date());
  const started = Date.now();
  const startedAt = realNow();
  // The domain's clock: moved to each quote, order and event's own past time.
  let current = startedAt;
  const runtime = createRuntime({ config, db, logger: createLogger(config.logLevel), now: () => new Date(current) });
  const { deps } = runtime;
  const clock: SeedClock = { at: (secs: number) => void (current = new Date(secs * 1000)) };

  const mode = options.mode ?? 'bulk';
  const plan = planSeed(options, deps.registry, config, startedAt);
  if (plan.skipped.length > 0) {
    log(`note: ${plan.skipped.join(', ')} cannot happen within ${options.days} day(s); use more --days to see them`);
  }
  log(
    `seeding ${plan.orders.length} orders from ${plan.users.length} users over ${options.days} day(s) ` +
      `(seed ${JSON.stringify(String(options.seed))}, ${db.kind}, ${mode})`,
  );
  const progress = (done: number, events: number) =>
    log(
      `  ${done}/${plan.orders.length} orders, ${events} escrow events (${((Date.now() - started) / 1000).toFixed(1)} s, ` +
        `${Math.round(done / Math.max(0.001, (Date.now() - started) / 1000))} orders/s)`,
    );

  // The months the orders fall in, partitioned before they are written (else they would sit in the
  // default partitions, which the partition keeper then cannot split: README, Deployment).
  await db.prisma.$queryRaw`SELECT ensure_month_partitions(${new Date(startedAt.getTime() - options.days * 86_400_000)}, ${startedAt})`;

  let seeded: Seeded;
  try {
    seeded = mode === 'bulk' ? await seedInBulk(db, deps, clock, plan, progress) : await seedThroughDomain(db, deps, clock, plan, progress);
  } finally {
    await runtime.stop();
  }
  // The book starts folded, as a running instance's stats keeper keeps it (prisma/sql/stats-triggers.sql):
  // otherwise every statistics read would add up the whole seed's deltas until an instance's first fold.
  await db.prisma.$queryRaw`SELECT stats_fold()`;

  // The plan is relative to the start: each order must be in its planned status at that time. What
  // the product says at the end can differ for orders whose deadline passed while seeding ran.
  const end = realNow();
  const byStatus = emptyCounts();
  let mismatches = 0;
  let movedByClock = 0;
  for (const [index, row] of seeded.rows.entries()) {
    const status = statusAt(row, end);
    byStatus[status]++;
    if (plan.orders[index]!.status !== statusAt(row, startedAt)) mismatches++;
    else if (plan.orders[index]!.status !== status) movedByClock++;
  }
  const elapsedMs = Date.now() - started;
  const { orderIds, events } = seeded;

  log(`seeded ${orderIds.length} orders, ${events} escrow events in ${(elapsedMs / 1000).toFixed(1)} s`);
  const width = Math.max(...ORDER_STATUSES.map((s) => s.length));
  for (const s of ORDER_STATUSES) log(`  ${s.padEnd(width)} ${String(byStatus[s]).padStart(8)}   (${STATUS_BUCKET[s]})`);
  if (movedByClock > 0)
    log(`note: ${movedByClock} order(s) reached a deadline while seeding ran, as their clock says (expired, refunding)`);
  if (mismatches > 0) log(`warning: ${mismatches} order(s) are not in their planned status`);
  const [total, ...perStatus] = await Promise.all([
    db.prisma.order.count(),
    ...ORDER_STATUSES.map((s) => db.prisma.order.count({ where: statusWhere(s, end) })),
  ]);
  log(`database now holds ${total} orders: ${ORDER_STATUSES.map((s, i) => `${perStatus[i]} ${s}`).join(', ')}`);

  return { orders: orderIds.length, users: plan.users.length, orderIds, byStatus, mismatches, events, elapsedMs };
}
