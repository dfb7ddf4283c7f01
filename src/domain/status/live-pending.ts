import { Prisma, type PrismaClient } from '../../generated/prisma/client.ts';

const MINUTE_MS = 60_000;

/**
 * Pending orders whose deadline is still ahead of `now` (the clock has not made them `expired`),
 * counted per window: those created at or after each `since` (null: any time).
 *
 * Read without touching the orders themselves, which right after a burst are fresh rows that even
 * an index-only scan must visit. The stats_pending rollup (with its unfolded deltas: stats_pending_live) has them by
 * the minute of their deadline and of their creation, so only the two partial minutes come from
 * `orders`, each an index range of at most one minute:
 * - deadlines after now's minute are summed from the rollup; the rest of now's minute is read;
 * - a window's first minute, when `since` falls inside one, is read; its whole minutes are summed.
 */
export async function countLivePending<W extends string>(
  prisma: PrismaClient,
  now: Date,
  windows: Record<W, Date | null>,
): Promise<Record<W, number>> {
  const liveFrom = new Date(Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS + MINUTE_MS);
  const names = Object.keys(windows) as W[];
  const counts = names.map((name) => {
    const since = windows[name];
    const wholeFrom = since && new Date(Math.ceil(since.getTime() / MINUTE_MS) * MINUTE_MS);
    const rolled = Prisma.sql`(SELECT coalesce(sum(orders), 0) FROM stats_pending_live WHERE deadline_minute >= ${liveFrom}
      ${wholeFrom ? Prisma.sql`AND created_minute >= ${wholeFrom}` : Prisma.empty})`;
    const endingThisMinute = Prisma.sql`(SELECT count(*) FROM orders WHERE stage = 'pending'
      AND deadline_at > ${now} AND deadline_at < ${liveFrom} ${since ? Prisma.sql`AND created_at >= ${since}` : Prisma.empty})`;
    const firstMinute = since
      ? Prisma.sql`(SELECT count(*) FROM orders WHERE stage = 'pending'
          AND created_at >= ${since} AND created_at < ${wholeFrom} AND deadline_at >= ${liveFrom})`
      : Prisma.sql`0`;
    return Prisma.sql`(${rolled} + ${endingThisMinute} + ${firstMinute})::text`;
  });
  const [row] = await prisma.$queryRaw<{ counts: string[] }[]>`SELECT ARRAY[${Prisma.join(counts)}] AS counts`;
  return Object.fromEntries(names.map((name, i) => [name, Number(row!.counts[i])])) as Record<W, number>;
}
