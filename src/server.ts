import { createServer } from 'node:http';
import { Redis } from 'ioredis';
import { createApp } from './app.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { openPglite, openPostgres, type Database } from './db/database.ts';
import { StaticPriceSource } from './domain/prices.ts';
import { loadRegistry } from './domain/registry/registry.ts';
import { memoryStatsCache, redisStatsCache } from './domain/stats-cache.ts';
import { createLogger } from './logger.ts';

/** The only file that listens on a port. Start-up order: config, database, registry, HTTP. */
async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);

  const db: Database = config.databaseUrl
    ? await openPostgres({ url: config.databaseUrl, onPoolError: (err) => logger.warn({ err }, 'database pool error') })
    : await openPglite(config.dataDir);
  const registry = loadRegistry(config.assetsFile);
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 1, enableOfflineQueue: false })
    : undefined;
  redis?.on('error', (err) => logger.warn({ err: err.message }, 'redis error'));

  const app = createApp({
    config,
    db,
    registry,
    prices: new StaticPriceSource(registry),
    statsCache: redis ? redisStatsCache(redis, config.statsCacheSeconds) : memoryStatsCache(config.statsCacheSeconds),
    logger,
    readinessChecks: redis ? { redis: () => redis.ping() } : undefined,
  });

  const server = createServer(app);
  server.listen(config.port, config.host, () => {
    const where = db.kind === 'pglite' ? `embedded PGlite in ${config.dataDir}` : 'PostgreSQL';
    logger.info(`order book listening on http://${config.host}:${config.port} (GraphQL at /graphql, ${where})`);
  });

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    const forced = setTimeout(() => {
      logger.error('in-flight requests did not finish in time; exiting');
      process.exit(1);
    }, config.shutdownGraceSeconds * 1000);
    forced.unref();
    // Stop accepting; close idle keep-alive sockets now and busy ones as their responses end.
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    redis?.disconnect();
    await db.close();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
