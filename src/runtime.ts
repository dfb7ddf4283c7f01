import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { createApp, type App } from './app.ts';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import type { DomainDeps } from './domain/deps.ts';
import { recordEscrowEvent } from './domain/escrow-events.ts';
import { StaticPriceSource } from './domain/prices.ts';
import { loadRegistry } from './domain/registry/registry.ts';
import { memoryStatsCache, redisStatsCache, type StatsCache } from './domain/stats-cache.ts';
import { SimulatedChain } from './relayer/simulated-chain.ts';
import { RelayerWorker } from './relayer/worker.ts';
import { createOrderPubSub, pubSubOrderEvents, type OrderPubSub } from './schema/pubsub.ts';

export interface RuntimeOptions {
  config: Config;
  db: Database;
  logger: Logger;
  now?: () => Date;
  /** Shared state across instances: stats cache and subscription fan-out. */
  redis?: { client: Redis; subscriber: Redis };
  statsCache?: StatsCache;
}

export interface Runtime {
  app: App;
  worker: RelayerWorker;
  chain: SimulatedChain;
  pubsub: OrderPubSub;
  statsCache: StatsCache;
  /** The domain's dependencies, for scripts and tests that act as a watcher would. */
  deps: DomainDeps;
  /** Stops the worker and the simulated chain (the database is the caller's). */
  stop(): Promise<void>;
}

/** The composition root: everything one instance runs, wired once for the server and the tests. */
export function createRuntime(options: RuntimeOptions): Runtime {
  const { config, db, logger, redis } = options;
  const now = options.now ?? (() => new Date());
  const registry = loadRegistry(config.assetsFile);
  const prices = new StaticPriceSource(registry);
  const pubsub = createOrderPubSub(redis ? { publish: redis.client, subscribe: redis.subscriber } : undefined);
  const statsCache =
    options.statsCache ??
    (redis ? redisStatsCache(redis.client, config.statsCacheSeconds) : memoryStatsCache(config.statsCacheSeconds));
  const deps: DomainDeps = { prisma: db.prisma, registry, prices, config, now, events: pubSubOrderEvents(pubsub) };

  const chain = new SimulatedChain({
    confirmAfterMs: config.simulatedChainConfirmMs,
    chains: registry.chains.map((c) => c.id),
    // The simulated chain's watcher reports through the same ingestion path as a real one.
    ingest: async (swapId, event) => void (await recordEscrowEvent(deps, swapId, event)),
    now,
    onError: (err) => logger.warn({ err }, 'simulated chain could not report a claim'),
  });
  const worker = new RelayerWorker({ prisma: db.prisma, adapter: chain, logger, now, pollMs: config.relayerPollMs });

  const app = createApp({
    config,
    db,
    registry,
    prices,
    statsCache,
    logger,
    now,
    pubsub,
    redis: redis?.client,
    relayer: { adapter: chain, isRunning: () => worker.isRunning },
    readinessChecks: redis ? { redis: () => redis.client.ping() } : undefined,
  });

  return {
    app,
    worker,
    chain,
    pubsub,
    statsCache,
    deps,
    async stop() {
      await worker.stop();
      chain.stop();
    },
  };
}
