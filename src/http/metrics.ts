import { createServer, type Server } from 'node:http';
import { createCounter, createHistogram, type FillLabelsFnParams, usePrometheus } from '@graphql-yoga/plugin-prometheus';
import type { Plugin } from 'graphql-yoga';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ErrorCode } from '../domain/errors.ts';
import { HTTP_STATUS } from './status.ts';
import { errorCodeOf } from './envelope.ts';
import { routeLabel, type RoutePatternOf } from './route-label.ts';

/**
 * Prometheus metrics (README, Operations). One registry per app, so tests can run several apps in a
 * process. Gauges that describe shared state (queue depth, pool, watcher lag) are read when scraped.
 */

export type ClaimOutcome = 'submitted' | 'retried' | 'failed' | 'confirmed';
export type RedisFailure = 'publish' | 'subscribe' | 'stats_cache';

export interface MetricSources {
  /** pg's pool; undefined on PGlite, which has one connection and no pool. */
  pool?: () => { total: number; idle: number; waiting: number };
  /** Claims queued or submitted and not yet confirmed (what /relayer/health calls queue_depth). */
  relayerQueueDepth: () => Promise<number>;
  /** Blocks between each watched chain's head and the watcher's cursor; only chains this instance leads. */
  watcherLag: () => { chain: string; blocks: number }[];
  /** Webhook events not yet fanned out, and deliveries not yet delivered or given up (all instances). */
  webhookBacklog?: () => Promise<{ outbox: number; pending: number }>;
}

export interface Metrics {
  registry: Registry;
  /** The text exposition, for /metrics. */
  respond(): Promise<Response>;
  claimOutcome(outcome: ClaimOutcome): void;
  statsCache(result: 'hit' | 'miss'): void;
  /** Optional work Redis failed (README, Hardening): a PUBLISH for other instances, a stats cache read or write. */
  redisFailure(kind: RedisFailure): void;
  /** One webhook attempt by this instance: its endpoint, whether a 2xx came back, and how long it took. */
  webhookAttempt(endpoint: string, ok: boolean, latencyMs: number): void;
  /** Yoga plugins: HTTP latency per route, GraphQL per operation, errors by code, open subscriptions. */
  /**
   * `countDeprecatedFields`: whether the schema deprecates any field. Counting them walks every operation's
   * document with its types on every request (as long as the document itself), so only a schema with
   * something to count pays for it.
   */
  plugins(options: {
    graphqlEndpoint: string;
    servePath: string | undefined;
    countDeprecatedFields: boolean;
    /** The REST route a path reaches, for the route label; the composition passes the route table's. */
    routePatternOf: RoutePatternOf;
  }): Plugin[];
}

const LATENCY_BUCKETS: [number, ...number[]] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Operation names are the client's to choose, and each one is a set of series in every GraphQL metric: the
 * first OPERATION_NAMES distinct names (each a GraphQL name of at most 64 characters) keep their own label,
 * later ones share `other`, so no stream of made-up names can grow /metrics or the process without bound.
 */
export const OPERATION_NAMES = 100;
const OPERATION_NAME = /^[_A-Za-z][_0-9A-Za-z]{0,63}$/;

function boundedOperationLabels(): (params: FillLabelsFnParams) => { operationType: string; operationName: string } {
  const named = new Set<string>();
  return ({ operationName, operationType }) => {
    let name = operationName || 'Anonymous';
    if (!named.has(name)) {
      if (named.size < OPERATION_NAMES && OPERATION_NAME.test(name)) named.add(name);
      else name = 'other';
    }
    return { operationType: operationType ?? 'unknown', operationName: name };
  };
}
/** The code of an error response: the domain error's own, else the one code its status stands for. */
function codeOfStatus(status: number): string {
  const codes = (Object.entries(HTTP_STATUS) as [ErrorCode, number][]).filter(([, s]) => s === status);
  return codes.length === 1 ? codes[0]![0] : `HTTP_${status}`;
}

export function createMetrics(sources: MetricSources): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const httpDuration = new Histogram({
    name: 'orderbook_http_request_duration_seconds',
    help: 'HTTP requests by method, route (the route table pattern, or /graphql) and status code; _count is the request count.',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const errors = new Counter({
    name: 'orderbook_errors_total',
    help: 'Error answers by API (rest, graphql) and code (the GraphQL extensions.code; REST uses the same codes).',
    labelNames: ['api', 'code'] as const,
    registers: [registry],
  });
  const subscriptions = new Gauge({
    name: 'orderbook_graphql_subscriptions',
    help: 'Open GraphQL subscriptions (SSE and WebSocket) on this instance.',
    registers: [registry],
  });
  const claims = new Counter({
    name: 'orderbook_relayer_claims_total',
    help: 'Relayer claim outcomes on this instance: submitted, retried (a transient chain error), failed, confirmed.',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const statsCache = new Counter({
    name: 'orderbook_stats_cache_requests_total',
    help: 'Statistics reads by result: hit (served from the cache, or from a computation another request started) or miss.',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const redisFailures = new Counter({
    name: 'orderbook_redis_failures_total',
    help: 'Redis commands that failed while the instance carried on without them, by kind: publish, subscribe, stats_cache.',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'orderbook_relayer_queue_depth',
    help: 'Claims queued or submitted and not yet confirmed (all instances: read from the database when scraped).',
    registers: [registry],
    async collect() {
      try {
        this.set(await sources.relayerQueueDepth());
      } catch {
        // Database unreachable: no sample rather than a failed scrape; /ready reports the outage.
        this.reset();
      }
    },
  });
  new Gauge({
    name: 'orderbook_watcher_lag_blocks',
    help: "Blocks between a chain's head and the watcher's cursor, for the EVM chains this instance watches.",
    labelNames: ['chain'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const { chain, blocks } of sources.watcherLag()) this.set({ chain }, blocks);
    },
  });
  const webhookLatency = new Histogram({
    name: 'orderbook_webhook_delivery_duration_seconds',
    help: 'Webhook attempts by this instance, by endpoint id and result (success: a 2xx; failure: anything else); _count is the attempt count.',
    labelNames: ['endpoint', 'result'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  if (sources.webhookBacklog) {
    const backlog = sources.webhookBacklog;
    new Gauge({
      name: 'orderbook_webhook_backlog',
      help: 'Webhook work waiting, by stage: outbox (events not yet fanned out), pending (deliveries not yet delivered or given up).',
      labelNames: ['stage'] as const,
      registers: [registry],
      async collect() {
        try {
          const { outbox, pending } = await backlog();
          this.set({ stage: 'outbox' }, outbox);
          this.set({ stage: 'pending' }, pending);
        } catch {
          this.reset();
        }
      },
    });
  }
  if (sources.pool) {
    const pool = sources.pool;
    new Gauge({
      name: 'orderbook_db_pool_connections',
      help: 'PostgreSQL pool connections by state: in_use or idle.',
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        const { total, idle } = pool();
        this.set({ state: 'in_use' }, total - idle);
        this.set({ state: 'idle' }, idle);
      },
    });
    new Gauge({
      name: 'orderbook_db_pool_waiting',
      help: 'Queries waiting for a PostgreSQL pool connection.',
      registers: [registry],
      collect() {
        this.set(pool().waiting);
      },
    });
  }

  const metrics: Metrics = {
    registry,
    async respond() {
      return new Response(await registry.metrics(), { headers: { 'content-type': registry.contentType } });
    },
    claimOutcome: (outcome) => claims.inc({ outcome }),
    statsCache: (result) => statsCache.inc({ result }),
    redisFailure: (kind) => redisFailures.inc({ kind }),
    webhookAttempt: (endpoint, ok, latencyMs) => webhookLatency.observe({ endpoint, result: ok ? 'success' : 'failure' }, latencyMs / 1000),
    plugins({ graphqlEndpoint, servePath, countDeprecatedFields, routePatternOf }) {
      const started = new WeakMap<Request, number>();
      const http: Plugin = {
        onRequest({ request, url, endResponse }) {
          started.set(request, performance.now());
          // HEAD too: Node drops the body of a HEAD's answer.
          if (servePath !== undefined && url.pathname === servePath && (request.method === 'GET' || request.method === 'HEAD')) {
            return metrics.respond().then(endResponse);
          }
        },
        onResponse({ request, response }) {
          const url = new URL(request.url);
          const route = routeLabel(url.pathname, request.method, graphqlEndpoint, routePatternOf);
          const seconds = (performance.now() - (started.get(request) ?? performance.now())) / 1000;
          httpDuration.observe({ method: request.method, route, status_code: String(response.status) }, seconds);
          // On /graphql Yoga's answers are counted by their results (below); an envelope there is the REST
          // plugin's refusal of a method, which no result carries.
          if (url.pathname !== graphqlEndpoint && response.status >= 400) {
            errors.inc({ api: 'rest', code: errorCodeOf(response) ?? codeOfStatus(response.status) });
          } else if (url.pathname === graphqlEndpoint && errorCodeOf(response)) {
            errors.inc({ api: 'graphql', code: errorCodeOf(response)! });
          }
        },
        onResultProcess({ request, result }) {
          if (new URL(request.url).pathname !== graphqlEndpoint || !('errors' in result) || !result.errors) return;
          for (const error of result.errors) {
            const code = (error as { extensions?: { code?: unknown } }).extensions?.code;
            errors.inc({ api: 'graphql', code: typeof code === 'string' ? code : 'UNKNOWN' });
          }
        },
        onSubscribe() {
          return {
            onSubscribeResult({ result }) {
              if (!(Symbol.asyncIterator in result)) return;
              subscriptions.inc();
              return { onEnd: () => void subscriptions.dec() };
            },
          };
        },
      };
      const operation = boundedOperationLabels();
      const perOperation = ['operationType', 'operationName'] as const;
      const latency = <Phase extends 'validate' | 'execute' | 'subscribe'>(name: string, help: string, phases: [Phase, ...Phase[]]) =>
        createHistogram<Phase, (typeof perOperation)[number]>({
          registry,
          histogram: { name, help, labelNames: perOperation, buckets: LATENCY_BUCKETS },
          fillLabelsFn: operation,
          phases,
        });
      const graphql = usePrometheus({
        registry,
        // Served above, with the rest of the registry (and optionally on its own port).
        endpoint: false,
        // Per operation (operationName, operationType) of /graphql requests. The plugin labels an operation
        // when it is parsed, so the REST layer's pre-parsed documents are counted per route above instead.
        // Every metric is labelled through `operation`, which bounds the names a client can make up.
        metrics: {
          graphql_envelop_request: createCounter({
            registry,
            counter: { name: 'graphql_envelop_request', help: 'GraphQL operations executed', labelNames: perOperation },
            fillLabelsFn: operation,
            phases: ['execute', 'subscribe'],
          }),
          graphql_envelop_request_duration: latency('graphql_envelop_request_duration', 'Time from parse to the end of execution', [
            'execute',
            'subscribe',
          ]),
          // Without the plugin's `path` label: an error's path holds list indexes, one series each.
          graphql_envelop_error_result: createCounter({
            registry,
            counter: { name: 'graphql_envelop_error_result', help: 'Errors in GraphQL results', labelNames: [...perOperation, 'phase'] },
            fillLabelsFn: (params) => ({ ...operation(params), phase: params.errorPhase ?? 'unknown' }),
            phases: ['parse', 'validate', 'context', 'execute', 'subscribe'],
          }),
          graphql_envelop_deprecated_field: countDeprecatedFields
            ? createCounter({
                registry,
                counter: {
                  name: 'graphql_envelop_deprecated_field',
                  help: 'Deprecated fields selected by operations',
                  labelNames: [...perOperation, 'fieldName', 'typeName'],
                },
                fillLabelsFn: (params) => ({
                  ...operation(params),
                  fieldName: params.deprecationInfo?.fieldName ?? '',
                  typeName: params.deprecationInfo?.typeName ?? '',
                }),
                phases: ['parse'],
              })
            : false,
          graphql_envelop_phase_validate: latency('graphql_envelop_phase_validate', 'Time validating an operation', ['validate']),
          graphql_envelop_phase_execute: latency('graphql_envelop_phase_execute', 'Time executing an operation', ['execute']),
          // Left out (the plugin turns them on unless told): parse and context time are noise here, the
          // summary repeats the histogram, and the schema never changes at run time.
          graphql_envelop_phase_parse: false,
          graphql_envelop_phase_context: false,
          graphql_envelop_phase_subscribe: false,
          graphql_envelop_request_time_summary: false,
          graphql_envelop_schema_change: false,
          graphql_yoga_http_duration: false,
        },
      });
      return [http, graphql];
    },
  };
  return metrics;
}

/** METRICS_PORT: /metrics on a port of its own (kept off the public one), nothing else on it. */
export function serveMetricsOnPort(metrics: Metrics, port: number, host: string): Server {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics are at /metrics');
      return;
    }
    metrics.registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      () => response.writeHead(500).end(),
    );
  });
  return server.listen(port, host);
}
