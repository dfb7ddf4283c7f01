import type { Logger } from 'pino';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { PollingLoop } from '../polling-loop.ts';

/**
 * Keeps the planner's statistics up with tables that grow (README, Deployment: Data that grows), for the
 * databases where autovacuum does not: PGlite has none, a PostgreSQL may run with it off, and where it runs
 * it reaches a table only after its naptime.
 *
 * Why it matters: each connection plans a statement once and keeps the plan until the statistics of a table
 * it reads change. A plan made while a table or this month's partition was empty scans it whole, which costs
 * nothing then; without a new ANALYZE that plan stays, and every create then reads the whole partition (the
 * foreign key check of an order's intents) and every quote (the quote's consumption), slower with each order.
 * An ANALYZE makes every connection plan those statements again, with the sizes as they are.
 *
 * So it analyzes a table once it has changed by as many rows as it had at its last ANALYZE (a table that only
 * grows: each time it doubles), not at autovacuum's tenth: a plan turns on sizes in orders of magnitude (a scan
 * or an index), and every ANALYZE makes each connection plan again every statement that reads the table. On a
 * young book taking orders, a tenth came every few seconds, and planning the live updates' read again on each
 * connection took PostgreSQL longer than running it (test/bench/README.md, Live updates). Autovacuum, where it
 * runs, keeps its own finer threshold at its own pace.
 */
const INTERVAL_MS = 5_000;

export class PlannerStatisticsKeeper extends PollingLoop {
  /** Tables whose ANALYZE failed (a statement timeout on a large table, say): not tried again before this time. */
  private readonly resting = new Map<string, { until: number; pauseMs: number }>();

  constructor(private readonly options: { prisma: PrismaClient; logger: Logger; intervalMs?: number; now?: () => number }) {
    super({ name: 'planner statistics keeper', intervalMs: options.intervalMs ?? INTERVAL_MS, logger: options.logger });
  }

  /** One round: the tables it analyzed. */
  async tick(): Promise<string[]> {
    const now = this.options.now?.() ?? Date.now();
    const analyzed: string[] = [];
    for (const name of await grownTables(this.options.prisma)) {
      const rest = this.resting.get(name);
      if (rest && rest.until > now) continue;
      try {
        await analyze(this.options.prisma, name);
        this.resting.delete(name);
        analyzed.push(name);
      } catch (error) {
        // Each failure in a row doubles the pause before the next try, up to an hour.
        const pauseMs = Math.min((rest?.pauseMs ?? (this.options.intervalMs ?? INTERVAL_MS) / 2) * 2, 60 * 60_000);
        this.resting.set(name, { until: now + pauseMs, pauseMs });
        this.options.logger.warn({ table: name, err: (error as Error).message }, 'ANALYZE failed; tried again later');
      }
    }
    if (analyzed.length > 0) this.options.logger.debug({ tables: analyzed }, 'planner statistics refreshed');
    return analyzed;
  }
}

/**
 * The tables of the current schema that this role may analyze, changed since their last ANALYZE by more than 50
 * rows plus the rows they had then, most changed first. The rows they had then are their live rows less those
 * changes (exact for a table that only grows), not `reltuples`: a VACUUM sets that to the size it finds without
 * resetting the changes, so a table vacuumed as often as it doubles would never be analyzed again.
 */
async function grownTables(prisma: PrismaClient): Promise<string[]> {
  const rows = await prisma.$queryRaw<{ name: string }[]>`
    SELECT format('%I.%I', s.schemaname, s.relname) AS name
    FROM pg_stat_user_tables AS s JOIN pg_class AS c ON c.oid = s.relid
    WHERE s.schemaname = current_schema() AND c.relkind = 'r' AND pg_has_role(c.relowner, 'USAGE')
      AND s.n_mod_since_analyze > 50 + greatest(s.n_live_tup - s.n_mod_since_analyze, 0)
    ORDER BY s.n_mod_since_analyze DESC`;
  return rows.map((row) => row.name);
}

/**
 * One table, in a statement of its own, so its lock is held only while it is sampled, and the service's
 * statement timeout bounds it. SKIP_LOCKED: a table another session holds (an instance's or autovacuum's
 * ANALYZE, a migration, an archived month's DETACH) is left for a later round instead of waited for.
 */
function analyze(prisma: PrismaClient, name: string): Promise<number> {
  // The name comes from format('%I.%I'): quoted as an identifier by PostgreSQL itself.
  return prisma.$executeRawUnsafe(`ANALYZE (SKIP_LOCKED) ${name}`);
}

/** Every grown table analyzed now, for a bulk load that wants its plans to follow it (the seed, between batches). */
export async function analyzeGrownTables(prisma: PrismaClient): Promise<string[]> {
  const names = await grownTables(prisma);
  for (const name of names) await analyze(prisma, name);
  return names;
}
