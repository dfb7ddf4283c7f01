import type { Config } from '../config.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { OrderEvents } from './order-events.ts';
import type { PriceSource } from './prices.ts';
import type { Registry } from './registry/registry.ts';
import type { QuoteAndOrderStore } from './stores.ts';

/** What the domain rules need from the outside world; tests pass their own clock. */
export interface DomainDeps {
  prisma: PrismaClient;
  /** Quotes and order creation, below Prisma Client on the hot paths (src/db/row-store.ts implements it). */
  rows: QuoteAndOrderStore;
  registry: Registry;
  prices: PriceSource;
  config: Pick<Config, 'quoteTtlSeconds' | 'orderDeadlineSeconds' | 'statsCacheSeconds' | 'webhooks'>;
  now: () => Date;
  /** Told of every committed order change, for live updates. */
  events: OrderEvents;
}
