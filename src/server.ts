import cluster from 'node:cluster';
import type { AddressInfo } from 'node:net';
import { runPrimary } from './cluster.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { openPglite, openPostgres, type Database } from './db/database.ts';
import { createHttpServer } from './http/node-server.ts';
import { serveMetricsOnPort } from './http/metrics.ts';
import { createLogger } from './logger.ts';
import { connectRedis } from './redis.ts';
import { RegistryError } from './domain/registry/registry.ts';
import { createRuntime } from './runtime.ts';
import { startTracing } from './tracing.ts';
import { serveWebSockets } from './websocket.ts';

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
  const rootLogger = createLogger(config.logLevel);
  // WORKERS > 1: this process only supervises the workers, each of which runs the rest of main().
  if (config.workers > 1 && cluster.isPrimary) {
    runPrimary(config.workers, config.shutdownGraceSeconds, rootLogger);
    return;
  }
  // A worker's lines say which process wrote them.
  const logger = cluster.isWorker ? rootLogger.child({ pid: process.pid }) : rootLogger;
  // Last resort only: failures of optional work are handled where they happen (README, Hardening),
  // and the fault tests fail if this line is ever logged. A stray rejection must not drop every
  // connection of the instance.
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));
  // Before the database: Prisma's spans need the tracer provider in place.
  const tracing = await startTracing(process.env);

  const db: Database = config.databaseUrl
    ? await openPostgres({
        url: config.databaseUrl,
        timeouts: config.database,
        preparedStatements: config.preparedStatements,
        onPoolError: (err) => logger.warn({ err }, 'database pool error'),
        replicas: {
          ...config.replicas,
          onChange: (replica, usable) =>
            logger.warn({ replica }, usable ? 'replica in use again' : 'replica skipped (down or lagging): its reads go to the primary'),
        },
      })
    : await openPglite(config.dataDir);
  const redis = config.redisUrl ? connectRedis(config.redisUrl, config.redisKeyPrefix, logger) : undefined;
  let runtime;
  try {
    runtime = createRuntime({ config, db, logger, redis });
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const { app } = runtime;

  const server = createHttpServer(app, config.http);
  // GraphQL over WebSocket (graphql-ws) beside SSE, on the same path.
  const sockets = serveWebSockets(server, app, { limits: runtime.limits, logger });
  const metricsServer =
    runtime.metrics && config.metrics.port !== undefined
      ? serveMetricsOnPort(runtime.metrics, config.metrics.port, config.host)
      : undefined;
  runtime.worker.start();
  runtime.webhooks.start();
  runtime.partitions.start();
  runtime.statsKeeper.start();
  runtime.plannerStatistics.start();
  for (const watcher of runtime.watchers) watcher.start();
  // A port that cannot be taken ends the process. The WebSocket server listens for the HTTP server's errors
  // too, so without this a failed listen would only be logged, leaving a process that serves nothing.
  const listenFailed = (error: NodeJS.ErrnoException) => {
    process.stderr.write(`failed to start: cannot listen on ${config.host}:${config.port} (${error.code ?? error.message})\n`);
    process.exit(1);
  };
  server.once('error', listenFailed);
  server.listen(config.port, config.host, () => {
    server.off('error', listenFailed);
    const where = db.kind === 'pglite' ? `embedded PGlite in ${config.dataDir}` : 'PostgreSQL';
    // The bound port, not config.port: with PORT=0 the OS picks one.
    const { port } = server.address() as AddressInfo;
    logger.info(`order book listening on http://${config.host}:${port} (GraphQL at /graphql, ${where})`);
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
    await sockets.close();
    metricsServer?.close();
    await runtime.stop();
    redis?.client.disconnect();
    redis?.subscriber.disconnect();
    await db.close();
    await tracing?.shutdown();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  // A bad ASSETS_FILE is a bad setting like any other (README, Configuration: exit code 2).
  process.exit(error instanceof RegistryError ? 2 : 1);
});
