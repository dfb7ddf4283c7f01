import DataLoader from 'dataloader';
import type { RequestReads } from '../db/replicas/routing.ts';
import type { RowStore } from '../db/row-store.ts';
import type { Intent } from '../generated/prisma/client.ts';

/** Per-request batch loaders: every load made while a response is built becomes one query. */
export interface Loaders {
  /** Intents by swap id: a page's source and destination intents in one query, not one per side. */
  intent: DataLoader<string, Intent>;
}

/**
 * Intents are read where the request's other reads go (a replica, src/db/replicas/); any the replica
 * does not have yet (its order was read on the primary) come from the primary.
 */
export function createLoaders(reads: RequestReads, primary: RowStore): Loaders {
  return {
    intent: new DataLoader(
      async (swapIds) => {
        const target = await reads.lagTolerant();
        let found = await target.rows.intentsBySwapId(swapIds);
        if (target.rows !== primary && found.length < swapIds.length) {
          const have = new Set(found.map((row) => row.swapId));
          found = [...found, ...(await primary.intentsBySwapId(swapIds.filter((id) => !have.has(id))))];
        }
        const bySwapId = new Map(found.map((row) => [row.swapId, row]));
        return swapIds.map((id) => bySwapId.get(id) ?? new Error(`intent ${id} not found`));
      },
      // Batching only: a subscription keeps its context across events, and a cache would answer
      // each later event with the intents as they were at the first.
      { cache: false },
    ),
  };
}
