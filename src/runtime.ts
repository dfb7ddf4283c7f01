import { randomUUID } from 'node:crypto';
import cluster from 'node:cluster';
import type { Logger } from 'pino';
import { createPublicClient, http } from 'viem';
import { createApp, type App } from './app.ts';
import { siblingLink } from './cluster.ts';
import { runDocument } from './rest/run-document.ts';
import { restClaim, restOrder } from './rest/routes.ts';
import { WebhookWorker, webhookHealth, type RenderEvent } from './webhooks/worker.ts';
import { resolveEvmChains } from './chains/evm/chain-config.ts';
import { EvmWatcher } from './chains/evm/watcher.ts';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import { memoryWriterWindow, redisWriterWindow, type WriterWindow } from './db/replicas/writer-window.ts';
import type { DomainDeps } from './domain/deps.ts';
import { signingWith } from './domain/quotes.ts';
import { recordEscrowEvent } from './domain/escrow-events.ts';
import { createMetrics, type Metrics, type RedisFailure } from './http/metrics.ts';
import { StaticPriceSource } from './domain/prices.ts';
import { loadRegistry } from './domain/registry/registry.ts';
import { memoryStatsCache, redisStatsCache, type StatsCache } from './domain/stats-cache.ts';
import { createTransportLimits, type TransportLimits } from './http/transport-limits.ts';
import { ChainRouter } from './relayer/chain-router.ts';
import { EvmClaimAdapter } from './relayer/evm-adapter.ts';
import { SimulatedChain } from './relayer/simulated-chain.ts';
import { RelayerWorker } from './relayer/worker.ts';
import { PartitionKeeper } from './db/partitions.ts';
import { PlannerStatisticsKeeper } from './db/planner-statistics.ts';
import { StatsKeeper } from './db/stats-keeper.ts';
import { throttledWarn, type RedisLink } from './redis.ts';
import { createOrderPubSub, pubSubOrderEvents, type OrderPubSub } from './schema/pubsub.ts';

export interface RuntimeOptions {
  config: Config;
  db: Database;
  logger: Logger;
  now?: () => Date;
  /** Shared state across instances: stats cache, rate limits and subscription fan-out. Optional. */
  redis?: RedisLink;
  statsCache?: StatsCache;
}

export interface Runtime {
  app: App;
  worker: RelayerWorker;
  /** Webhook fan-out, delivery and the clock sweep; the server starts it. */
  webhooks: WebhookWorker;
  chain: SimulatedChain;
  /** Claims on EVM chains with an RPC URL; undefined when none is configured. */
  evm: EvmClaimAdapter | undefined;
  /** One per EVM chain with an RPC URL; the server starts them (they take turns through a lease). */
  watchers: EvmWatcher[];
  /** Makes the monthly partitions of orders and intents ahead of time; the server starts it. */
  partitions: PartitionKeeper;
  /** Folds the statistics deltas into their rollups; the server starts it. */
  statsKeeper: StatsKeeper;
  /** Analyzes the tables that grew, where autovacuum does not (PGlite, or turned off); the server starts it. */
  plannerStatistics: PlannerStatisticsKeeper;
  pubsub: OrderPubSub;
  statsCache: StatsCache;
  /** Rate limits and subscription caps, for the WebSocket transport as for HTTP. */
  limits: TransportLimits;
  /** Prometheus metrics; undefined when METRICS=off. */
  metrics: Metrics | undefined;
  /** The domain's dependencies, for scripts and tests that act as a watcher would. */
  deps: DomainDeps;
  /** Stops the worker, the watchers and the simulated chain (the database is the caller's). */
  stop(): Promise<void>;
}

/** The composition root: everything one instance runs, wired once for the server and the tests. */
export function createRuntime(options: RuntimeOptions): Runtime {
  const { config, db, logger, redis } = options;
  const now = options.now ?? (() => new Date());
  const registry = loadRegistry(config.assetsFile);
  const prices = new StaticPriceSource(registry);
  let watchers: EvmWatcher[] = [];
  const metrics = config.metrics.enabled
    ? createMetrics({
        pool: db.poolStats,
        relayerQueueDepth: () => db.prisma.relayerClaim.count({ where: { status: { in: ['queued', 'submitted'] } } }),
        webhookBacklog: async () => {
          const health = await webhookHealth(db.prisma);
          return { outbox: health.outbox_depth, pending: health.pending_deliveries };
        },
        watcherLag: () => watchers.flatMap((w) => (w.lagBlocks === undefined ? [] : [{ chain: w.chain, blocks: w.lagBlocks }])),
      })
    : undefined;
  const onRedisFailure = (kind: RedisFailure) => metrics?.redisFailure(kind);
  // Several workers: the primary passes each change on to the other workers (src/cluster.ts).
  const pubsub = createOrderPubSub(redis, logger, onRedisFailure, cluster.isWorker ? siblingLink() : undefined);
  const statsCache = countedStatsCache(options.statsCache ?? createStatsCache(config, logger, redis, onRedisFailure), metrics);
  const deps: DomainDeps = {
    quotes: signingWith(db.rows, config.quoteSigningKey),
    escrow: db.escrow,
    claims: db.claims,
    registry,
    prices,
    config,
    now,
    events: pubSubOrderEvents(pubsub),
  };

  const chain = new SimulatedChain({
    confirmAfterMs: config.simulatedChainConfirmMs,
    chains: registry.chains.map((c) => c.id),
    // The simulated chain's watcher reports through the same ingestion path as a real one.
    ingest: async (swapId, event) => void (await recordEscrowEvent(deps, swapId, event)),
    now,
    onError: (err) => logger.warn({ err }, 'simulated chain could not report a claim'),
  });
  // Chains with an RPC URL are real: watched, and claimed on with the relayer key. Others stay simulated.
  const evmChains = resolveEvmChains(registry, config).map((settings) => ({
    settings,
    client: createPublicClient({ transport: http(settings.rpcUrl, { timeout: 10_000 }), pollingInterval: config.watcherPollMs }),
  }));
  const evm = evmChains.length > 0 ? new EvmClaimAdapter({ chains: evmChains, privateKey: config.relayerPrivateKey, logger }) : undefined;
  const adapter = new ChainRouter(evm && { adapter: evm, handles: (id) => evm.handles(id) }, chain);
  const owner = `${process.pid}-${randomUUID().slice(0, 8)}`;
  watchers = evmChains.map(
    ({ settings, client }) =>
      new EvmWatcher({
        chain: settings,
        client,
        prisma: db.prisma,
        logger,
        ingest: (swapId, event) => recordEscrowEvent(deps, swapId, event),
        owner,
        pollMs: config.watcherPollMs,
        leaseMs: config.watcherLeaseMs,
      }),
  );
  const worker = new RelayerWorker({
    prisma: db.prisma,
    adapter,
    logger,
    now,
    pollMs: config.relayerPollMs,
    onOutcome: metrics && ((outcome) => metrics.claimOutcome(outcome)),
  });

  const limits = createTransportLimits(config, redis?.client);
  const app = createApp({
    writers: db.replicas ? createWriterWindow(config, logger, redis) : undefined,
    config,
    db,
    registry,
    prices,
    statsCache,
    logger,
    now,
    pubsub,
    limits,
    metrics,
    relayer: { adapter, isRunning: () => worker.isRunning, webhookHealth: () => webhookHealth(db.prisma) },
    optionalChecks: redis ? { redis: () => redis.client.ping() } : undefined,
  });

  const render = webhookRenderer(app);
  const webhooks = new WebhookWorker({
    prisma: db.prisma,
    logger,
    settings: config.webhooks,
    render,
    now,
    onAttempt: metrics && ((endpoint, ok, latencyMs) => metrics.webhookAttempt(endpoint, ok, latencyMs)),
  });

  const partitions = new PartitionKeeper({ prisma: db.prisma, logger });
  const statsKeeper = new StatsKeeper({ prisma: db.prisma, logger });
  const plannerStatistics = new PlannerStatisticsKeeper({ prisma: db.prisma, logger });

  return {
    app,
    worker,
    webhooks,
    chain,
    evm,
    watchers,
    partitions,
    statsKeeper,
    plannerStatistics,
    pubsub,
    statsCache,
    limits,
    metrics,
    deps,
    async stop() {
      await Promise.all([
        worker.stop(),
        webhooks.stop(),
        partitions.stop(),
        statsKeeper.stop(),
        plannerStatistics.stop(),
        ...watchers.map((w) => w.stop()),
      ]);
      chain.stop();
    },
  };
}

/** Read-your-writes across instances needs the window in Redis; without it each instance knows its own writers. */
function createWriterWindow(config: Config, logger: Logger, redis: RedisLink | undefined): WriterWindow {
  const windowMs = config.replicas.readYourWritesMs;
  if (!redis) return memoryWriterWindow(windowMs);
  const warn = throttledWarn(logger, 'redis unavailable for the read-your-writes window; reads stay on the primary');
  return redisWriterWindow(redis.client, windowMs, (error) => warn(error.message));
}

function createStatsCache(
  config: Config,
  logger: Logger,
  redis: RedisLink | undefined,
  onRedisFailure: (kind: RedisFailure) => void,
): StatsCache {
  const memory = memoryStatsCache(config.statsCacheSeconds);
  if (!redis) return memory;
  const warn = throttledWarn(logger, "redis stats cache unavailable; serving this instance's cache");
  return redisStatsCache(redis.client, config.statsCacheSeconds, {
    fallback: memory,
    onRedisError: (error) => {
      onRedisFailure('stats_cache');
      warn(error.message);
    },
  });
}

/** Counts statistics reads as cache hits or misses: a miss is a read that ran the computation itself. */
function countedStatsCache(cache: StatsCache, metrics: Metrics | undefined): StatsCache {
  if (!metrics) return cache;
  return {
    async get(compute) {
      let computed = false;
      const cached = await cache.get(() => {
        computed = true;
        return compute();
      });
      metrics.statsCache(computed ? 'miss' : 'hit');
      return cached;
    },
    async series(key, compute) {
      let computed = false;
      const cached = await cache.series(key, () => {
        computed = true;
        return compute();
      });
      metrics.statsCache(computed ? 'miss' : 'hit');
      return cached;
    },
    clear: () => cache.clear(),
  };
}

/** An event's data is the order (or claim) exactly as REST returns it, through the same documents. */
export function webhookRenderer(app: App): RenderEvent {
  return async (event) => {
    const run = runDocument(app, new Request('http://webhooks.internal/'));
    if (event.type === 'order.status_changed') {
      const order = restOrder((await run('order', { orderId: event.orderId })).data.order) as Record<string, unknown>;
      return { ...order, status: event.status, previous_status: event.previousStatus };
    }
    const claim = restClaim((await run('claim', { orderId: event.orderId })).data.claim) as Record<string, unknown>;
    return { ...claim, status: event.status };
  };
}
