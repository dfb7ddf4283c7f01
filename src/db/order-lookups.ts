import { Prisma, type PrismaClient } from '../generated/prisma/client.ts';
import type { OrderLookup } from '../domain/order-lookup.ts';

/**
 * The statement that finds the orders of a transaction or a swap id: one indexed read, whatever the
 * size of the book. swap_keys (one row per swap id, with its order) answers a swap id by primary
 * key; a transaction is found through the intents' tx-hash indexes (one per column, on every monthly
 * partition; migration ..._intent_tx_hash_lookups), combined by a BitmapOr.
 */
export function orderIdsSql(lookup: OrderLookup): Prisma.Sql {
  const conditions: Prisma.Sql[] = [];
  if (lookup.swapId !== undefined) conditions.push(Prisma.sql`k.swap_id = ${lookup.swapId}`);
  if (lookup.txHashes !== undefined) {
    const hashes = lookup.txHashes;
    const any = Prisma.sql`ANY(${hashes}::text[])`;
    conditions.push(Prisma.sql`k.swap_id IN (
      SELECT swap_id FROM intents
      WHERE create_tx_hash = ${any} OR claim_tx_hash = ${any} OR cancel_tx_hash = ${any} OR bridge_tx_hash = ${any})`);
  }
  return Prisma.sql`SELECT DISTINCT k.order_id AS id FROM swap_keys AS k WHERE ${Prisma.join(conditions, ' AND ')}`;
}

/** The ids of the orders a lookup names (none when it names none). */
export async function lookupOrderIds(prisma: PrismaClient, lookup: OrderLookup): Promise<string[]> {
  const rows = await prisma.$queryRaw<{ id: string }[]>(orderIdsSql(lookup));
  return rows.map((row) => row.id);
}
