import type { Logger } from 'pino';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { PollingLoop } from '../polling-loop.ts';

/**
 * Folds the statistics deltas into the rollups (README, How it is built: Statistics): the triggers on `orders` only append
 * to stats_deltas, and each round moves what is there into stats_hourly, stats_pairs, stats_assets,
 * stats_pending and stats_users with stats_fold() (prisma/sql/stats-triggers.sql), one statement that
 * deletes what it folds. Readers add the unfolded deltas themselves, so a late or skipped round changes no
 * figure; folding often keeps those deltas few, and so the reads small. Every instance runs one: a fold
 * that finds another under way skips its round.
 */
export class StatsKeeper extends PollingLoop {
  private rounds = 0;
  /** Deltas this keeper folded since its last VACUUM: none, and there is nothing of its own to vacuum. */
  private foldedSinceVacuum = 0;

  constructor(
    private readonly options: {
      prisma: PrismaClient;
      logger: Logger;
      intervalMs?: number;
      /** Rounds between two VACUUMs of stats_deltas. */
      vacuumEvery?: number;
    },
  ) {
    super({ name: 'stats keeper', intervalMs: options.intervalMs ?? 1000, logger: options.logger });
  }

  /** One round: the deltas folded (null when another instance's fold held the lock), and whether it vacuumed. */
  async tick(): Promise<{ folded: number | null; vacuumed: boolean }> {
    // One statement, so one transaction: the fold's lock is held until its deletes and upserts commit.
    const [row] = await this.options.prisma.$queryRaw<[{ folded: bigint | null }]>`SELECT stats_fold() AS folded`;
    const folded = row.folded === null ? null : Number(row.folded);
    this.foldedSinceVacuum += folded ?? 0;
    // Every folded delta leaves a dead row: vacuumed here rather than when autovacuum gets to it, so the
    // table the readers scan stays a few pages. SKIP_LOCKED: another instance's VACUUM is as good. An idle
    // book folds nothing and vacuums nothing, so an idle primary writes no WAL for the keeper.
    const vacuumed = ++this.rounds % (this.options.vacuumEvery ?? 10) === 0 && this.foldedSinceVacuum > 0;
    if (vacuumed) {
      await this.options.prisma.$executeRawUnsafe('VACUUM (SKIP_LOCKED) stats_deltas');
      this.foldedSinceVacuum = 0;
    }
    return { folded, vacuumed };
  }
}
