import { randomBytes } from 'node:crypto';
import { describe, expect } from 'vitest';
import type { Database } from '../src/db/database.ts';
import { countByStatus } from '../src/domain/status/count.ts';
import {
  deriveStage,
  clockTurnAtSql,
  clockTurnTimesSql,
  clockTurnedSql,
  ORDER_STATUSES,
  STATUS_BUCKET,
  statusAt,
  statusSql,
  statusWhere,
  type EscrowFacts,
} from '../src/domain/status/rule.ts';
import type { Stage } from '../src/generated/prisma/client.ts';
import { it } from './support/app.ts';

const facts = (s: string): EscrowFacts => ({
  created: s.includes('c'),
  claimed: s.includes('C'),
  cancelled: s.includes('X'),
  late: s.includes('L'),
});

describe('deriveStage', () => {
  it.each([
    ['', '', 'pending'],
    ['', 'c', 'pending'],
    ['c', '', 'source_created'],
    ['c', 'c', 'destination_created'],
    ['c', 'cC', 'destination_claimed'],
    ['cC', 'cC', 'completed'],
    ['cC', 'c', 'completed'],
    ['cX', 'cC', 'completed'],
    ['c', 'cX', 'refunding'],
    ['cX', 'cX', 'cancelled'],
    ['cX', '', 'cancelled'],
    ['cL', '', 'pending'],
    ['cL', 'c', 'destination_created'],
    ['cLX', '', 'cancelled'],
  ])('source %j, destination %j -> %s', (source, destination, stage) => {
    expect(deriveStage(facts(source), facts(destination))).toBe(stage);
  });
});

describe('statusAt', () => {
  const t0 = new Date('2026-01-01T00:00:00Z');
  const later = (s: number) => new Date(t0.getTime() + s * 1000);
  const order = (stage: Stage) => ({ stage, deadlineAt: later(3600), destExpiresAt: later(43200) });

  it('expires a pending order at its deadline', () => {
    expect(statusAt(order('pending'), later(3599))).toBe('pending');
    expect(statusAt(order('pending'), later(3600))).toBe('expired');
  });

  it('turns an unclaimed destination into refunding once it expires', () => {
    expect(statusAt(order('destination_created'), later(43199))).toBe('destination_created');
    expect(statusAt(order('destination_created'), later(43200))).toBe('refunding');
    expect(statusAt(order('source_created'), later(43200))).toBe('refunding');
    expect(statusAt(order('destination_claimed'), later(90000))).toBe('destination_claimed');
  });

  it('puts every status in one stats bucket', () => {
    expect(Object.keys(STATUS_BUCKET).sort()).toEqual([...ORDER_STATUSES].sort());
  });
});

describe('statusWhere, statusSql and the rollup counts agree with statusAt on the database', () => {
  let db: Database;
  const now = new Date('2026-06-01T12:00:00Z');
  const stages: Stage[] = [
    'pending',
    'source_created',
    'destination_created',
    'destination_claimed',
    'completed',
    'refunding',
    'cancelled',
  ];
  const offsets = [-7200, -1, 0, 1, 7200];
  const rows: { id: string; stage: Stage; deadlineAt: Date; destExpiresAt: Date }[] = [];

  // The file's database (the fixture's); no app reads it here.
  it.beforeAll(async ({ db: fileDb }) => {
    db = fileDb;
    for (const stage of stages) {
      for (const d of offsets) {
        for (const e of offsets) {
          const id = randomBytes(32).toString('hex');
          const deadlineAt = new Date(now.getTime() + d * 1000);
          const destExpiresAt = new Date(now.getTime() + e * 1000);
          rows.push({ id, stage, deadlineAt, destExpiresAt });
          const swap = (side: string) => ({
            swapId: `${id}-${side}`,
            side: side as 'source' | 'destination',
            chain: 'bitcoin',
            asset: 'bitcoin:btc',
            tokenAddress: 'primary',
            creator: 'a',
            recipient: 'b',
            amount: '1',
            commitmentHash: id,
            cancelAfter: 1n,
          });
          await db.prisma.order.create({
            data: {
              id,
              userId: 'u',
              quoteId: id,
              sourceTokenPrice: '1',
              destTokenPrice: '1',
              feeBips: 0,
              commitmentHash: id,
              requestHash: id,
              stage,
              deadlineAt,
              destExpiresAt,
              sourceChain: 'bitcoin',
              destChain: 'ethereum',
              sourceAsset: 'bitcoin:btc',
              destAsset: 'ethereum:wbtc',
              volumeUsd: '1',
              sourceIntent: { create: swap('source') },
              destinationIntent: { create: swap('destination') },
            },
          });
        }
      }
    }
  }, 120_000);

  it.each(ORDER_STATUSES)('%s', async (status) => {
    const found = await db.prisma.order.findMany({ where: statusWhere(status, now), select: { id: true } });
    const expected = rows.filter((r) => statusAt(r, now) === status).map((r) => r.id);
    expect(found.map((f) => f.id).sort()).toEqual(expected.sort());
  });

  it('statusSql gives every order the status statusAt gives it', async () => {
    const found = await db.prisma.$queryRawUnsafe<{ id: string; status: string }[]>(
      `SELECT o.id, ${statusSql('o', '$1::timestamptz')} AS status FROM orders o WHERE o.user_id = 'u'`,
      now.toISOString(),
    );
    const byId = new Map(found.map((row) => [row.id, row.status]));
    expect(byId.size).toBe(rows.length);
    for (const row of rows)
      expect(byId.get(row.id), `${row.stage} ${row.deadlineAt.toISOString()} ${row.destExpiresAt.toISOString()}`).toBe(statusAt(row, now));
  });

  it('clockTurnedSql finds exactly the orders whose status statusAt turns between two times, with both statuses', async () => {
    const at = (s: number) => new Date(now.getTime() + s * 1000);
    const times = [-7201, -7200, -2, -1, 0, 1, 7200].map(at);
    let turns = 0;
    for (const [i, from] of times.entries()) {
      for (const to of times.slice(i + 1)) {
        const found = await db.prisma.$queryRawUnsafe<{ id: string; previous: string; status: string }[]>(
          `SELECT o.id, ${statusSql('o', '$1::timestamptz')} AS previous, ${statusSql('o', '$2::timestamptz')} AS status
           FROM orders o WHERE o.user_id = 'u' AND ${clockTurnedSql('o', '$1::timestamptz', '$2::timestamptz')}`,
          from.toISOString(),
          to.toISOString(),
        );
        const expected = rows
          .filter((r) => statusAt(r, from) !== statusAt(r, to))
          .map((r) => ({ id: r.id, previous: statusAt(r, from), status: statusAt(r, to) }));
        const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
        expect(found.sort(byId), `${from.toISOString()} -> ${to.toISOString()}`).toEqual(expected.sort(byId));
        turns += expected.length;
      }
    }
    // The grid holds turns of both kinds of deadline.
    expect(turns).toBeGreaterThan(0);
  });

  it('clockTurnTimesSql, the same turns split by deadline, gives the turn time of every order clockTurnedSql finds', async () => {
    const at = (s: number) => new Date(now.getTime() + s * 1000);
    const times = [-7201, -2, 0, 1, 7200].map(at);
    for (const [i, from] of times.entries()) {
      for (const to of times.slice(i + 1)) {
        const args = [from.toISOString(), to.toISOString()];
        const sorted = (rows: { at: Date }[]) => rows.map((r) => r.at.toISOString()).sort();
        const split = await db.prisma.$queryRawUnsafe<{ at: Date }[]>(
          `SELECT at FROM (${clockTurnTimesSql('o', '$1::timestamptz', '$2::timestamptz', '1000000')}) AS parts`,
          ...args,
        );
        const whole = await db.prisma.$queryRawUnsafe<{ at: Date }[]>(
          `SELECT ${clockTurnAtSql('o')} AS at
           FROM orders o WHERE ${clockTurnedSql('o', '$1::timestamptz', '$2::timestamptz')}`,
          ...args,
        );
        expect(sorted(split), `${args[0]} -> ${args[1]}`).toEqual(sorted(whole));
      }
    }
  });

  it.each(ORDER_STATUSES)('%s counted from the rollups the stats trigger keeps', async (status) => {
    const expected = rows.filter((r) => statusAt(r, now) === status).length;
    expect(expected).toBeGreaterThan(0);
    expect(await countByStatus(db.prisma, [status], now)).toBe(expected);
  });
});
