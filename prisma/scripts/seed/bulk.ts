import type { Database } from '../../../src/db/database.ts';
import { analyzeGrownTables } from '../../../src/db/planner-statistics.ts';
import { INTENT, type ModelColumns, ORDER, QUOTE, unnestInsert } from '../../../src/db/model-columns.ts';
import type { DomainDeps } from '../../../src/domain/deps.ts';
import { applyEscrowEvent, type EscrowRecord } from '../../../src/domain/escrow-events.ts';
import { buildOrder, newOrderId, requestFingerprint } from '../../../src/domain/orders.ts';
import { priceQuote, quoteRow, resolvePair } from '../../../src/domain/quotes.ts';
import { signQuoteId } from '../../../src/domain/signed-quotes.ts';
import type { Prisma, Stage } from '../../../src/generated/prisma/client.ts';
import type { Plan } from './plan.ts';
import { type Progress, requestsOf, type SeedClock, type Seeded } from './requests.ts';

// Bulk: the domain's own rows, built in memory and sent as array inserts

const BATCH_ORDERS = 5000;

type Row = Record<string, unknown>;

/** One INSERT ... SELECT FROM unnest(...) per table and batch, typed by the model (src/db/model-columns.ts). */
async function insertRows(db: Database, model: ModelColumns, rows: Row[]): Promise<void> {
  if (rows.length === 0) return;
  const { sql, args } = unnestInsert(model, rows);
  await db.driver.query(sql, args);
}

export async function seedInBulk(db: Database, deps: DomainDeps, clock: SeedClock, plan: Plan, progress: Progress): Promise<Seeded> {
  const orderIds: string[] = [];
  const stored: Seeded['rows'] = [];
  let events = 0;
  let inflight: Promise<void> = Promise.resolve();
  // Seeded quotes are signed as the service signs them (src/domain/signed-quotes.ts), so their ids read back.
  const signingKey = await deps.quotes.signingKey();
  const every = Math.max(BATCH_ORDERS, Math.round(plan.orders.length / 20 / BATCH_ORDERS) * BATCH_ORDERS);

  for (let start = 0; start < plan.orders.length; start += BATCH_ORDERS) {
    const quotes: Row[] = [];
    const intents: Row[] = [];
    const orders: Row[] = [];
    for (const order of plan.orders.slice(start, start + BATCH_ORDERS)) {
      const { route } = order;
      const requests = requestsOf(order);
      const { commitmentHash } = requests;
      clock.at(order.createdAt - order.quoteLead);
      const terms = await priceQuote(deps, requests.quote);
      const quote = quoteRow(signQuoteId(terms, signingKey), terms);
      clock.at(order.createdAt);
      const request = requests.order(quote.id, terms.destAmount);
      const createdAt = new Date(order.createdAt * 1000);
      const orderId = newOrderId(createdAt);
      const stored_quote = { ...quote, consumedBy: orderId };
      const pair = resolvePair(deps, route.source.id, route.destination.id);
      const built = buildOrder(deps, request, stored_quote, pair, orderId, requestFingerprint(request), createdAt);
      const data = built.order;
      const [sourceIntent, destinationIntent] = built.intents;

      // The escrow events, applied as recordEscrowEvent would, in the order the watcher reports them.
      const escrow = (intent: Prisma.IntentCreateManyInput): EscrowRecord => ({
        side: intent.side,
        commitmentHash: intent.commitmentHash,
        commitment: null,
        updatedAt: createdAt,
        createTxHash: null,
        createBlockNumber: null,
        createTimestamp: null,
        claimTxHash: null,
        claimBlockNumber: null,
        claimTimestamp: null,
        cancelTxHash: null,
        cancelBlockNumber: null,
        cancelTimestamp: null,
      });
      const deadlineAt = data.deadlineAt as Date;
      let escrows = { deadlineAt, source: escrow(sourceIntent), destination: escrow(destinationIntent) };
      let stage: Stage = 'pending';
      let updatedAt = createdAt;
      for (const { side, seenAt, event } of requests.events) {
        updatedAt = new Date(seenAt * 1000);
        const applied = applyEscrowEvent(escrows, side, event, updatedAt);
        if (!applied) throw new Error(`seed planned the same ${event.kind} twice`);
        escrows = { deadlineAt, source: applied.source, destination: applied.destination };
        stage = applied.stage;
        events++;
      }
      const { source, destination } = escrows;

      quotes.push(stored_quote);
      for (const [intent, facts] of [
        [sourceIntent, source],
        [destinationIntent, destination],
      ] as const) {
        intents.push({
          ...intent,
          registryAddress: intent.registryAddress ?? null,
          commitment: facts.commitment,
          createTxHash: facts.createTxHash,
          createBlockNumber: facts.createBlockNumber,
          createTimestamp: facts.createTimestamp,
          claimTxHash: facts.claimTxHash,
          claimBlockNumber: facts.claimBlockNumber,
          claimTimestamp: facts.claimTimestamp,
          cancelTxHash: facts.cancelTxHash,
          cancelBlockNumber: facts.cancelBlockNumber,
          cancelTimestamp: facts.cancelTimestamp,
          createdAt,
          updatedAt: facts.updatedAt,
        });
      }
      orders.push({
        ...data,
        id: orderId,
        quoteId: quote.id,
        commitmentHash,
        stage,
        completedAt: destination.claimTimestamp,
        sourceSwapId: sourceIntent.swapId,
        destinationSwapId: destinationIntent.swapId,
        createdAt,
        updatedAt,
      });
      orderIds.push(orderId);
      stored.push({ stage, deadlineAt, destExpiresAt: data.destExpiresAt as Date });
    }
    // Build the next batch while this one is written; intents before the orders that reference them.
    await inflight;
    const done = Math.min(start + BATCH_ORDERS, plan.orders.length);
    const eventsSoFar = events;
    inflight = (async () => {
      await insertRows(db, QUOTE, quotes);
      await insertRows(db, INTENT, intents);
      await insertRows(db, ORDER, orders);
      // As a running service would (src/db/planner-statistics.ts): without it, each batch's foreign key checks
      // keep the plans made while a month was empty and read the whole month, slower with every batch.
      await analyzeGrownTables(db.prisma);
      if (done % every === 0 || done === plan.orders.length) progress(done, eventsSoFar);
    })();
  }
  await inflight;
  // Fresh planner statistics and visibility map after a bulk load, as after any large import.
  await db.driver.exec('VACUUM ANALYZE quotes, intents, orders, stats_hourly, stats_pairs, stats_assets, stats_users');
  return { orderIds, rows: stored, events };
}
