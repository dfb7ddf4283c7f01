import DataLoader from 'dataloader';
import type { RowStore } from '../db/row-store.ts';
import type { Intent } from '../generated/prisma/client.ts';

/** Per-request batch loaders: every load made while a response is built becomes one query. */
export interface Loaders {
  /** Intents by swap id: a page's source and destination intents in one query, not one per side. */
  intent: DataLoader<string, Intent>;
}

export function createLoaders(rows: RowStore): Loaders {
  return {
    intent: new DataLoader(
      async (swapIds) => {
        const found = await rows.intentsBySwapId(swapIds);
        const bySwapId = new Map(found.map((row) => [row.swapId, row]));
        return swapIds.map((id) => bySwapId.get(id) ?? new Error(`intent ${id} not found`));
      },
      // Batching only: a subscription keeps its context across events, and a cache would answer
      // each later event with the intents as they were at the first.
      { cache: false },
    ),
  };
}
