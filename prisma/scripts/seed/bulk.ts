import { randomBytes } from 'node:crypto';
import type { Database } from '../../../src/db/database.ts';
import type { DomainDeps } from '../../../src/domain/deps.ts';
import { applyEscrowEvent, type EscrowRecord } from '../../../src/domain/escrow-events.ts';
import { buildOrder, requestFingerprint } from '../../../src/domain/orders.ts';
import { priceQuote, resolvePair } from '../../../src/domain/quotes.ts';
import { Prisma, type Quote, type Stage } from '../../../src/generated/prisma/client.ts';
import type { Plan } from './plan.ts';
import { type Progress, requestsOf, type SeedClock, type Seeded } from './requests.ts';

// Bulk: the domain's own rows, built in memory and sent as array inserts

const BATCH_ORDERS = 5000;

/** Every value travels as text in a text[] parameter and is cast in SQL: one encoding for pg and PGlite. */
type Cell = string | null;
const text = (value: { toString(): string } | null | undefined): Cell => (value == null ? null : value.toString());
const time = (value: Date | null | undefined): Cell => (value == null ? null : value.toISOString());

const QUOTE_COLUMNS = {
  id: 'text',
  source_asset: 'text',
  source_amount: 'numeric',
  dest_asset: 'text',
  dest_amount: 'numeric',
  source_token_price: 'numeric',
  dest_token_price: 'numeric',
  fee_bips: 'int',
  solver: 'jsonb',
  created_at: 'timestamptz',
  expires_at: 'timestamptz',
  consumed_by: 'text',
} as const;
const INTENT_COLUMNS = {
  swap_id: 'text',
  side: '"Side"',
  chain: 'text',
  asset: 'text',
  token_address: 'text',
  creator: 'text',
  recipient: 'text',
  amount: 'numeric',
  commitment_hash: 'text',
  commitment: 'text',
  cancel_after: 'bigint',
  registry_address: 'text',
  create_tx_hash: 'text',
  create_block_number: 'bigint',
  create_timestamp: 'timestamptz',
  claim_tx_hash: 'text',
  claim_block_number: 'bigint',
  claim_timestamp: 'timestamptz',
  cancel_tx_hash: 'text',
  cancel_block_number: 'bigint',
  cancel_timestamp: 'timestamptz',
  created_at: 'timestamptz',
  updated_at: 'timestamptz',
} as const;
const ORDER_COLUMNS = {
  id: 'text',
  user_id: 'text',
  quote_id: 'text',
  source_token_price: 'numeric',
  dest_token_price: 'numeric',
  fee_bips: 'int',
  commitment_hash: 'text',
  request_hash: 'text',
  stage: '"Stage"',
  deadline_at: 'timestamptz',
  dest_expires_at: 'timestamptz',
  source_chain: 'text',
  dest_chain: 'text',
  source_asset: 'text',
  dest_asset: 'text',
  volume_usd: 'numeric',
  completed_at: 'timestamptz',
  source_swap_id: 'text',
  destination_swap_id: 'text',
  created_at: 'timestamptz',
  updated_at: 'timestamptz',
} as const;

type Row<C> = Record<keyof C, Cell>;

/** One INSERT ... SELECT FROM unnest(...) per table and batch: a single round trip for thousands of rows. */
async function insertRows<C extends Record<string, string>>(db: Database, table: string, columns: C, rows: Row<C>[]): Promise<void> {
  if (rows.length === 0) return;
  const names = Object.keys(columns);
  const sql =
    `INSERT INTO ${table} (${names.map((n) => `"${n}"`).join(', ')}) ` +
    `SELECT ${names.map((n) => `u."${n}"::${columns[n]}`).join(', ')} ` +
    `FROM unnest(${names.map((_, i) => `$${i + 1}::text[]`).join(', ')}) AS u(${names.map((n) => `"${n}"`).join(', ')})`;
  await db.driver.query(
    sql,
    names.map((n) => rows.map((row) => row[n as keyof C])),
  );
}

export async function seedInBulk(db: Database, deps: DomainDeps, clock: SeedClock, plan: Plan, progress: Progress): Promise<Seeded> {
  const orderIds: string[] = [];
  const stored: Seeded['rows'] = [];
  let events = 0;
  let inflight: Promise<void> = Promise.resolve();
  const every = Math.max(BATCH_ORDERS, Math.round(plan.orders.length / 20 / BATCH_ORDERS) * BATCH_ORDERS);

  for (let start = 0; start < plan.orders.length; start += BATCH_ORDERS) {
    const quotes: Row<typeof QUOTE_COLUMNS>[] = [];
    const intents: Row<typeof INTENT_COLUMNS>[] = [];
    const orders: Row<typeof ORDER_COLUMNS>[] = [];
    for (const order of plan.orders.slice(start, start + BATCH_ORDERS)) {
      const { route } = order;
      const requests = requestsOf(order);
      const { commitmentHash } = requests;
      clock.at(order.createdAt - order.quoteLead);
      const quote = await priceQuote(deps, requests.quote);
      clock.at(order.createdAt);
      const request = requests.order(quote.id, BigInt(String(quote.destAmount)));
      const orderId = randomBytes(32).toString('hex');
      const stored_quote = {
        ...quote,
        sourceTokenPrice: new Prisma.Decimal(String(quote.sourceTokenPrice)),
        destTokenPrice: new Prisma.Decimal(String(quote.destTokenPrice)),
        consumedBy: orderId,
      } as unknown as Quote;
      const pair = resolvePair(deps, route.source.id, route.destination.id);
      const built = buildOrder(deps, request, stored_quote, pair, orderId, requestFingerprint(request), new Date(order.createdAt * 1000));
      const data = built.order;
      const [sourceIntent, destinationIntent] = built.intents;

      // The escrow events, applied as recordEscrowEvent would, in the order the watcher reports them.
      const createdAt = new Date(order.createdAt * 1000);
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

      quotes.push({
        id: quote.id,
        source_asset: quote.sourceAsset,
        source_amount: text(quote.sourceAmount),
        dest_asset: quote.destAsset,
        dest_amount: text(quote.destAmount),
        source_token_price: text(quote.sourceTokenPrice),
        dest_token_price: text(quote.destTokenPrice),
        fee_bips: text(quote.feeBips),
        solver: JSON.stringify(quote.solver),
        created_at: time(quote.createdAt as Date),
        expires_at: time(quote.expiresAt as Date),
        consumed_by: orderId,
      });
      for (const [intent, facts] of [
        [sourceIntent, source],
        [destinationIntent, destination],
      ] as const) {
        intents.push({
          swap_id: intent.swapId,
          side: intent.side,
          chain: intent.chain,
          asset: intent.asset,
          token_address: intent.tokenAddress,
          creator: intent.creator,
          recipient: intent.recipient,
          amount: text(intent.amount as string),
          commitment_hash: intent.commitmentHash,
          commitment: facts.commitment,
          cancel_after: text(intent.cancelAfter as bigint),
          registry_address: intent.registryAddress ?? null,
          create_tx_hash: facts.createTxHash,
          create_block_number: text(facts.createBlockNumber),
          create_timestamp: time(facts.createTimestamp),
          claim_tx_hash: facts.claimTxHash,
          claim_block_number: text(facts.claimBlockNumber),
          claim_timestamp: time(facts.claimTimestamp),
          cancel_tx_hash: facts.cancelTxHash,
          cancel_block_number: text(facts.cancelBlockNumber),
          cancel_timestamp: time(facts.cancelTimestamp),
          created_at: time(createdAt),
          updated_at: time(facts.updatedAt),
        });
      }
      orders.push({
        id: orderId,
        user_id: data.userId,
        quote_id: quote.id,
        source_token_price: text(quote.sourceTokenPrice),
        dest_token_price: text(quote.destTokenPrice),
        fee_bips: text(data.feeBips),
        commitment_hash: commitmentHash,
        request_hash: data.requestHash,
        stage,
        deadline_at: time(deadlineAt),
        dest_expires_at: time(data.destExpiresAt as Date),
        source_chain: data.sourceChain,
        dest_chain: data.destChain,
        source_asset: data.sourceAsset,
        dest_asset: data.destAsset,
        volume_usd: text(data.volumeUsd as string),
        completed_at: time(destination.claimTimestamp),
        source_swap_id: sourceIntent.swapId,
        destination_swap_id: destinationIntent.swapId,
        created_at: time(createdAt),
        updated_at: time(updatedAt),
      });
      orderIds.push(orderId);
      stored.push({ stage, deadlineAt, destExpiresAt: data.destExpiresAt as Date });
    }
    // Build the next batch while this one is written; intents before the orders that reference them.
    await inflight;
    const done = Math.min(start + BATCH_ORDERS, plan.orders.length);
    const eventsSoFar = events;
    inflight = (async () => {
      await insertRows(db, 'quotes', QUOTE_COLUMNS, quotes);
      await insertRows(db, 'intents', INTENT_COLUMNS, intents);
      await insertRows(db, 'orders', ORDER_COLUMNS, orders);
      if (done % every === 0 || done === plan.orders.length) progress(done, eventsSoFar);
    })();
  }
  await inflight;
  // Fresh planner statistics and visibility map after a bulk load, as after any large import.
  await db.driver.exec('VACUUM ANALYZE quotes, intents, orders, stats_hourly, stats_pairs, stats_assets, stats_users');
  return { orderIds, rows: stored, events };
}
