import type { PrismaClient } from '../generated/prisma/client.ts';
import type { ChainAdapter } from '../relayer/chain-adapter.ts';
import { envelope } from './envelope.ts';

type Checks = Record<string, () => Promise<unknown>>;

/**
 * `/ready`: every required dependency answers within 2 s, else 503 naming the ones that did not.
 * Optional ones (Redis) are reported but never make the instance unready: it serves without them,
 * and a load balancer must not take every instance out of rotation because a cache is away.
 */
export async function readiness(required: Checks, optional: Checks = {}, respond: typeof Response = Response): Promise<Response> {
  const [results, optionalResults] = await Promise.all([probe(required), probe(optional)]);
  const down = results.filter(([, state]) => state === 'down').map(([name]) => name);
  if (down.length > 0) return envelope(503, `not ready: ${down.join(', ')} unreachable`, { 'retry-after': '5' }, respond);
  return envelope(200, Object.fromEntries([...results, ...optionalResults]), {}, respond);
}

function probe(checks: Checks) {
  return Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      try {
        await withTimeout(check(), 2_000);
        return [name, 'ok'] as const;
      } catch {
        return [name, 'down'] as const;
      }
    }),
  );
}

/** A queued claim waiting longer than this means the relayer is not keeping up. */
const STALE_MS = 60_000;

/** What `/relayer/health` reports on, wired by the composition root (src/runtime.ts). */
export interface RelayerReport {
  adapter: ChainAdapter;
  isRunning: () => boolean;
  /** The webhook backlog (src/webhooks/worker.ts), passed in so http does not depend on webhooks. */
  webhookHealth: () => Promise<unknown>;
}

/** `/relayer/health` is JSON without the envelope: worker, queue depth, each chain's adapter. */
export async function relayerHealth(relayer: RelayerReport & { prisma: PrismaClient; now: () => Date }): Promise<Response> {
  const [depth, oldest, chains, webhooks] = await Promise.all([
    relayer.prisma.relayerClaim.count({ where: { status: { in: ['queued', 'submitted'] } } }),
    relayer.prisma.relayerClaim.findFirst({
      where: { status: 'queued' },
      orderBy: { nextAttemptAt: 'asc' },
      select: { nextAttemptAt: true },
    }),
    relayer.adapter.health(),
    // Webhook backlog, for operators: receivers being down never degrades the relayer's status.
    relayer.webhookHealth(),
  ]);
  const stuck = oldest !== null && relayer.now().getTime() - oldest.nextAttemptAt.getTime() > STALE_MS;
  const ok = relayer.isRunning() && !stuck && Object.values(chains).every((c) => c.ok);
  const body = {
    status: ok ? 'ok' : 'degraded',
    worker: relayer.isRunning() ? 'running' : 'stopped',
    queue_depth: depth,
    chains,
    webhooks,
  };
  return new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json; charset=utf-8' } });
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
