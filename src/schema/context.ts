import type { RequestReads } from '../db/replicas/routing.ts';
import type { StatsStore } from '../domain/stats.ts';
import type { OrdersStore } from '../db/orders-store.ts';
import type { DomainDeps } from '../domain/deps.ts';
import type { StatsCache } from '../domain/stats-cache.ts';
import type { WebhookEndpointsStore } from '../db/webhook-endpoints-store.ts';
import type { ApiKeyCheck } from '../http/api-keys.ts';
import type { Loaders } from './loaders.ts';
import type { OrderPubSub } from './pubsub.ts';

/** Per-request context: the domain's dependencies plus what a response needs to carry back. */
export interface GraphQLContext extends DomainDeps {
  /** Every read of orders (by id, pages, counts) goes through here. */
  orders: OrdersStore;
  /** The webhook endpoints and their deliveries (src/db/webhook-endpoints-store.ts). */
  webhooks: WebhookEndpointsStore;
  /** The statistics' rollups, where the request's lag-tolerant reads go. */
  stats: StatsStore;
  statsCache: StatsCache;
  pubsub: OrderPubSub;
  loaders: Loaders;
  /**
   * Where this request's lag-tolerant reads go (src/db/replicas/): the stores above read through
   * it; resolvers only mark the request.
   */
  reads: Pick<RequestReads, 'wrote' | 'pinPrimary'>;
  /** The request carried the watcher key (escrow-event ingestion). */
  isWatcher: boolean;
  /** `ok`: writes are open (no API_KEYS) or the request carried one of the keys (src/http/api-keys.ts). */
  apiKey: ApiKeyCheck;
  /** Who owns the webhook endpoints this request may see (src/webhooks/endpoints.ts); undefined = no valid key. */
  webhookOwner: string | undefined;
  /** Set by resolvers whose result is cacheable (stats); read by the REST layer for Cache-Control. */
  cacheMaxAgeSecs?: number;
}
