import cluster, { type Worker } from 'node:cluster';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { SiblingLink } from './schema/pubsub.ts';

/**
 * `WORKERS=N npm start`: N worker processes behind one port, with Node's cluster module (README, Operations).
 * The primary only forks and supervises: it opens no database and serves nothing. Each worker is the whole
 * service (src/server.ts) with its own database pool, and the primary hands new connections to them in turn.
 *
 * - A worker that dies while the service runs is replaced, one second later (the delay doubles, up to
 *   30 s, while replacements keep dying before they listen, and resets once one listens).
 * - Until the first worker has listened, a worker that exits (bad configuration, database down at start)
 *   stops the whole service with that exit code: forking it again would fail the same way. After that, a
 *   replacement that cannot start is retried: one outage must not take down the workers still serving.
 * - A subscription event a worker publishes is passed on to every other worker (`siblingLink`), so a
 *   subscriber hears of a change whichever worker made it, with or without Redis (which carries it to
 *   other instances).
 * - SIGTERM or SIGINT is passed to every worker, which finishes its in-flight requests (src/server.ts); the
 *   primary exits when all have, or after the grace period plus 5 s if one hangs.
 */
export function runPrimary(workers: number, graceSeconds: number, logger: Logger): void {
  let stopping = false;
  let exitCode = 0;
  const listened = new WeakSet<Worker>();
  let anyListened = false;
  let restartDelayMs = 1000;

  // The workers' one identity on Redis (src/schema/pubsub.ts, SiblingLink).
  const origin = randomUUID();
  const fork = () => {
    const worker = cluster.fork({ [ORIGIN_VARIABLE]: origin });
    worker.once('listening', () => {
      listened.add(worker);
      anyListened = true;
      restartDelayMs = 1000;
    });
  };

  cluster.on('exit', (worker, code, signal) => {
    const alive = Object.keys(cluster.workers ?? {}).length;
    if (stopping) {
      if (code !== 0 && code !== null) exitCode = code;
      if (alive === 0) {
        logger.info('all workers stopped');
        process.exit(exitCode);
      }
      return;
    }
    if (!anyListened) {
      logger.error({ pid: worker.process.pid, code, signal }, 'a worker exited before any listened; stopping');
      stop(code ?? 1);
      return;
    }
    logger.error({ pid: worker.process.pid, code, signal }, 'a worker exited; starting another');
    if (!listened.has(worker)) restartDelayMs = Math.min(restartDelayMs * 2, 30_000);
    // Not unref'd: with every worker gone, this timer is what keeps the primary alive to fork again.
    setTimeout(() => {
      if (!stopping) fork();
    }, restartDelayMs);
  });

  function stop(code: number) {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    const workersLeft = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
    if (workersLeft.length === 0) process.exit(exitCode);
    for (const worker of workersLeft) worker.process.kill('SIGTERM');
    setTimeout(
      () => {
        logger.error('workers did not stop in time; killing them');
        for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
        process.exit(1);
      },
      (graceSeconds + 5) * 1000,
    ).unref();
  }

  cluster.on('message', (from, message: unknown) => {
    if (!isSiblingMessage(message)) return;
    // Passed on as rebuilt: only the fields a sibling reads.
    const { topic, detail } = message.orderbookPubsub;
    const passed: SiblingMessage = { orderbookPubsub: { topic, detail: { orderId: detail.orderId } } };
    for (const worker of Object.values(cluster.workers ?? {})) {
      if (worker && worker !== from && worker.isConnected()) worker.send(passed, undefined, ignoreClosedChannel);
    }
  });

  process.on('SIGTERM', () => stop(0));
  process.on('SIGINT', () => stop(0));
  logger.info({ workers }, `starting ${workers} workers behind one port`);
  for (let i = 0; i < workers; i++) fork();
}

const ORIGIN_VARIABLE = 'ORDERBOOK_WORKERS_ORIGIN';
/** graphql-yoga's pubsub names an event `<topic>:<id>` (the order's or the user's). */
const TOPIC = /^(orderUpdated|userOrdersUpdated):/;

interface SiblingMessage {
  orderbookPubsub: { topic: string; detail: { orderId: string } };
}

function isSiblingMessage(message: unknown): message is SiblingMessage {
  const inner = (message as Partial<SiblingMessage> | null)?.orderbookPubsub;
  return typeof inner?.topic === 'string' && TOPIC.test(inner.topic) && typeof inner.detail?.orderId === 'string';
}

/** A worker stopping, or being replaced, closes its channel; what it would have heard is its own loss. */
const ignoreClosedChannel = () => undefined;

/** A worker's link to its siblings, through the primary's IPC channel (runPrimary passes messages on). */
export function siblingLink(): SiblingLink {
  return {
    origin: process.env[ORIGIN_VARIABLE] ?? randomUUID(),
    send(topic, detail) {
      if (process.connected)
        process.send?.({ orderbookPubsub: { topic, detail } } satisfies SiblingMessage, undefined, {}, ignoreClosedChannel);
    },
    listen(deliver) {
      process.on('message', (message: unknown) => {
        if (isSiblingMessage(message)) deliver(message.orderbookPubsub.topic, message.orderbookPubsub.detail);
      });
    },
  };
}
