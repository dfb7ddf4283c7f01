import { createHash } from 'node:crypto';
import { describe, expect } from 'vitest';
import { addressOn, planSeed, seed, segwitV0Address, type SeedResult } from '../prisma/scripts/seed/index.ts';
import { loadConfig } from '../src/config.ts';
import type { Database } from '../src/db/database.ts';
import { isValidAddress } from '../src/domain/addresses.ts';
import { loadRegistry } from '../src/domain/registry/registry.ts';
import { computeStats } from '../src/domain/stats.ts';
import { ORDER_STATUSES, STATUS_BUCKET, statusAt } from '../src/domain/status/rule.ts';
import { it } from './support/app.ts';
import { openTestDatabase } from './support/database.ts';

const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent' });
const ORDERS = 40;
const USERS = 8;
const DAYS = 3;

let result: SeedResult;
const lines: string[] = [];

// The file's database, seeded before its app starts; the tests read it and write nothing.
it.beforeAll(async ({ db }) => {
  result = await seed({ db, config, orders: ORDERS, users: USERS, days: DAYS, seed: 'test', log: (l) => lines.push(l) });
}, 120_000);

describe('npm run seed', () => {
  it('creates the orders in every status, as planned', async ({ db }) => {
    expect(result.orders).toBe(ORDERS);
    expect(result.orderIds).toHaveLength(ORDERS);
    expect(result.mismatches).toBe(0);
    for (const status of ORDER_STATUSES) expect(result.byStatus[status], status).toBeGreaterThan(0);
    expect(Object.values(result.byStatus).reduce((a, b) => a + b, 0)).toBe(ORDERS);
    expect(lines.some((l) => l.startsWith(`seeded ${ORDERS} orders`))).toBe(true);

    // The same, read back independently with the status rule.
    const rows = await db.prisma.order.findMany({ select: { stage: true, deadlineAt: true, destExpiresAt: true } });
    const now = new Date();
    const counted = Object.fromEntries(ORDER_STATUSES.map((s) => [s, 0]));
    for (const row of rows) counted[statusAt(row, now)]!++;
    expect(counted).toEqual(result.byStatus);
  });

  it('holds a long run to its plan, not to deadlines that passed while it ran', async () => {
    const other = await openTestDatabase();
    try {
      // The plan is made at the first reading of the clock; the check after seeding reads it 2 h later,
      // as a run of a million orders is long enough for a 1 h deadline to pass.
      const start = Date.now();
      let readings = 0;
      const now = () => new Date(readings++ === 0 ? start : start + 2 * 3_600_000);
      const log: string[] = [];
      const late = await seed({ db: other, config, orders: ORDERS, users: USERS, days: DAYS, seed: 'test', now, log: (l) => log.push(l) });
      expect(late.mismatches).toBe(0);
      expect(late.byStatus.pending).toBe(0);
      expect(late.byStatus.expired).toBeGreaterThan(result.byStatus.expired);
      expect(log.some((l) => /reached a deadline while seeding ran/.test(l))).toBe(true);
    } finally {
      await other.close();
    }
  }, 120_000);

  it('lists every status through GET /orders?status=', async ({ t }) => {
    let total = 0;
    for (const status of ORDER_STATUSES) {
      const reply = await t.rest('GET', `/orders?status=${status}&limit=100`);
      expect(reply.status).toBe(200);
      const page = reply.body.result;
      expect(page.total, status).toBe(result.byStatus[status]);
      expect(page.data.every((o: { status: string }) => o.status === status)).toBe(true);
      total += page.total;
    }
    expect(total).toBe(ORDERS);
  });

  it('makes /stats consistent: completed + in progress + cancelled = total', async ({ t }) => {
    const stats = (await t.rest('GET', '/stats')).body.result;
    for (const window of [stats.all_time, stats.last_24h, stats.last_7d]) {
      expect(window.completed_orders + window.in_progress_orders + window.cancelled_orders).toBe(window.total_orders);
    }
    const bucket = (b: string) => ORDER_STATUSES.filter((s) => STATUS_BUCKET[s] === b).reduce((sum, s) => sum + result.byStatus[s], 0);
    expect(stats.all_time).toMatchObject({
      total_orders: ORDERS,
      completed_orders: bucket('completed'),
      in_progress_orders: bucket('in_progress'),
      cancelled_orders: bucket('cancelled'),
    });
    expect(stats.all_time.unique_users).toBeGreaterThan(1);
    expect(stats.all_time.unique_users).toBeLessThanOrEqual(USERS);
    expect(stats.all_time.total_volume_usd).toBeGreaterThan(0);
    expect(stats.all_time.avg_completion_time_secs).toBeGreaterThan(0);
    // Every in-progress order is recent, so the last day is never empty.
    expect(stats.last_24h.total_orders).toBeGreaterThan(0);
    expect(stats.top_chain_pairs.length).toBeGreaterThan(0);
  });

  it('records chain-consistent escrow events and keeps secrets hidden until a claim', async ({ db }) => {
    const orders = await db.prisma.order.findMany({ include: { sourceIntent: true, destinationIntent: true } });
    const oldest = Date.now() - DAYS * 86_400_000 - 60_000;
    for (const order of orders) {
      expect(order.createdAt.getTime()).toBeGreaterThanOrEqual(oldest);
      expect(order.createdAt.getTime()).toBeLessThanOrEqual(Date.now());
      const quote = await db.prisma.quote.findUniqueOrThrow({ where: { id: order.quoteId } });
      expect(quote.consumedBy).toBe(order.id);
      const claimed = order.sourceIntent.claimTxHash !== null || order.destinationIntent.claimTxHash !== null;
      for (const intent of [order.sourceIntent, order.destinationIntent]) {
        for (const kind of ['claim', 'cancel'] as const) {
          const block = intent[`${kind}BlockNumber`];
          if (block === null) continue;
          expect(intent.createBlockNumber).not.toBeNull();
          expect(block >= intent.createBlockNumber!).toBe(true);
          expect(intent[`${kind}Timestamp`]!.getTime()).toBeGreaterThanOrEqual(intent.createTimestamp!.getTime());
        }
        for (const ts of [intent.createTimestamp, intent.claimTimestamp, intent.cancelTimestamp]) {
          if (ts) expect(ts.getTime() % 1000).toBe(0);
        }
        if (claimed) {
          const digest = createHash('sha256').update(Buffer.from(intent.commitment!, 'hex')).digest('hex');
          expect(digest).toBe(order.commitmentHash);
        } else {
          expect(intent.commitment).toBeNull();
        }
      }
    }
  });
});

describe('bulk and domain seeding', () => {
  it('write the same book: same orders, stages, amounts, escrow facts and statistics', async () => {
    const now = new Date(Math.floor(Date.now() / 1000) * 1000);
    const options = { config, orders: 60, users: 10, days: 9, seed: 'modes', now: () => now };
    const [bulkDb, domainDb] = [await openTestDatabase(), await openTestDatabase()];
    try {
      const bulk = await seed({ db: bulkDb, ...options, mode: 'bulk' });
      const domain = await seed({ db: domainDb, ...options, mode: 'domain' });
      expect(bulk.mismatches).toBe(0);
      expect(bulk.byStatus).toEqual(domain.byStatus);
      expect(bulk.events).toBe(domain.events);

      // Everything but the random parts (ids, secrets, transaction hashes), order by order.
      const book = async (db: Database) => {
        const orders = await db.prisma.order.findMany({ include: { sourceIntent: true, destinationIntent: true } });
        const quotes = new Map((await db.prisma.quote.findMany()).map((q) => [q.id, q]));
        return orders
          .map((o) => {
            const quote = quotes.get(o.quoteId)!;
            const intent = (i: typeof o.sourceIntent) => [
              i.side,
              i.chain,
              i.asset,
              i.tokenAddress,
              i.creator,
              i.recipient,
              i.amount.toFixed(),
              i.cancelAfter.toString(),
              i.registryAddress,
              i.createBlockNumber?.toString(),
              i.createTimestamp?.toISOString(),
              i.claimBlockNumber?.toString(),
              i.claimTimestamp?.toISOString(),
              i.cancelBlockNumber?.toString(),
              i.cancelTimestamp?.toISOString(),
              i.commitment === null,
              i.createTxHash === null,
              i.claimTxHash === null,
              i.cancelTxHash === null,
              i.createdAt.toISOString(),
              i.updatedAt.toISOString(),
            ];
            return JSON.stringify([
              o.userId,
              o.stage,
              o.deadlineAt,
              o.destExpiresAt,
              o.sourceChain,
              o.destChain,
              o.sourceAsset,
              o.destAsset,
              o.volumeUsd.toFixed(),
              o.completedAt,
              o.createdAt,
              o.updatedAt,
              o.feeBips,
              o.sourceTokenPrice.toFixed(),
              o.destTokenPrice.toFixed(),
              quote.consumedBy === o.id,
              quote.sourceAmount.toFixed(),
              quote.destAmount.toFixed(),
              quote.createdAt,
              quote.expiresAt,
              quote.solver,
              intent(o.sourceIntent),
              intent(o.destinationIntent),
            ]);
          })
          .sort();
      };
      expect(await book(bulkDb)).toEqual(await book(domainDb));

      const registry = loadRegistry();
      const stats = async (db: Database) => computeStats(db.stats, registry, now);
      expect(await stats(bulkDb)).toEqual(await stats(domainDb));
    } finally {
      await bulkDb.close();
      await domainDb.close();
    }
  }, 120_000);
});

describe('the seed plan', () => {
  const registry = loadRegistry();
  const now = new Date('2026-06-01T12:00:00Z');
  const options = { orders: 120, users: 40, days: 10, seed: 'plan' };

  it('is deterministic for a seed, and differs for another', () => {
    const summary = (seedValue: string) =>
      planSeed({ ...options, seed: seedValue }, registry, config, now).orders.map((o) => [
        o.status,
        o.route.source.id,
        o.route.destination.id,
        o.user.id,
        o.amount.toString(),
        o.createdAt,
        o.events.map((e) => `${e.side}:${e.kind}@${e.at}`).join(','),
      ]);
    expect(summary('plan')).toEqual(summary('plan'));
    expect(summary('plan')).not.toEqual(summary('other'));
  });

  it('keeps amounts within the registry bounds and addresses valid for their chains', () => {
    const plan = planSeed(options, registry, config, now);
    for (const order of plan.orders) {
      const { source } = order.route;
      expect(order.amount >= BigInt(source.min_amount) && order.amount <= BigInt(source.max_amount)).toBe(true);
      expect(order.route.sourceChain.network).toBe(order.route.destChain.network);
      const nowS = now.getTime() / 1000;
      expect(order.createdAt).toBeGreaterThanOrEqual(nowS - options.days * 86400);
      for (const e of order.events) expect(e.seenAt).toBeLessThanOrEqual(nowS);
    }
    for (const user of plan.users) {
      for (const chain of registry.chains) {
        const address = addressOn(user, chain);
        expect(isValidAddress(chain, address), `${chain.id} ${address}`).toBe(true);
      }
    }
    // BIP-173's own test vector.
    expect(segwitV0Address('bc', Buffer.from('751e76e8199196d454941c45d1b3a323f1433bd6', 'hex'))).toBe(
      'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
    );
  });

  it('gives every user the same number of orders with --even-users (full pages for the bench)', () => {
    const perUser = (evenUsers: boolean) => {
      const counts = new Map<string, number>();
      for (const o of planSeed({ ...options, evenUsers }, registry, config, now).orders)
        counts.set(o.user.id, (counts.get(o.user.id) ?? 0) + 1);
      return [...counts.values()];
    };
    const even = perUser(true);
    expect(even).toHaveLength(options.users);
    expect(new Set(even)).toEqual(new Set([options.orders / options.users]));
    // The default is uneven (a few users trade a lot).
    expect(Math.max(...perUser(false))).toBeGreaterThan(options.orders / options.users);
  });

  it('leaves out only the statuses that cannot happen in a short window', () => {
    const short = planSeed({ ...options, days: 0.5 }, registry, config, now);
    expect(short.skipped.sort()).toEqual(['cancelled', 'refunding']);
    expect(new Set(short.orders.map((o) => o.status)).size).toBe(ORDER_STATUSES.length - 2);
  });
});
