import type { Config } from '../config.ts';
import type { RowStore } from '../db/row-store.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { OrderEvents } from './order-events.ts';
import type { PriceSource } from './prices.ts';
import type { Registry } from './registry/registry.ts';

/** What the domain rules need from the outside world; tests pass their own clock. */
export interface DomainDeps {
  prisma: PrismaClient;
  /** The hot paths' SQL below Prisma Client: list pages, quotes, orders (src/db/row-store.ts). */
  rows: RowStore;
  registry: Registry;
  prices: PriceSource;
  config: Pick<Config, 'quoteTtlSeconds' | 'orderDeadlineSeconds' | 'statsCacheSeconds' | 'webhooks'>;
  now: () => Date;
  /** Told of every committed order change, for live updates. */
  events: OrderEvents;
}
