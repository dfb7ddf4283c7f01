import type { Config } from '../config.ts';
import type { OrderEvents } from './order-events.ts';
import type { PriceSource } from './prices.ts';
import type { Registry } from './registry/registry.ts';
import type { ClaimsStore, EscrowEventStore, QuoteAndOrderStore } from './stores.ts';

/** What the domain rules need from the outside world; tests pass their own clock. */
export interface DomainDeps {
  /** Quotes and the order that consumes one, below Prisma Client on the hot paths (src/db/row-store.ts implements it). */
  quotes: QuoteAndOrderStore;
  /** Escrow events, each applied atomically under its order's lock (src/db/escrow-store.ts implements it). */
  escrow: EscrowEventStore;
  /** Relayer claims (src/db/claims-store.ts implements it). */
  claims: ClaimsStore;
  registry: Registry;
  prices: PriceSource;
  config: Pick<Config, 'quoteTtlSeconds' | 'orderDeadlineSeconds' | 'statsCacheSeconds' | 'webhooks'>;
  now: () => Date;
  /** Told of every committed order change, for live updates. */
  events: OrderEvents;
}
