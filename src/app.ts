import { useGraphQlJit } from '@envelop/graphql-jit';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { getOperationAST } from 'graphql';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import { createReadRouting, routedOrdersStore } from './db/replicas/routing.ts';
import type { WriterWindow } from './db/replicas/writer-window.ts';
import { routedStatsStore } from './db/stats-store.ts';
import type { DomainDeps } from './domain/deps.ts';
import { signingWith } from './domain/quotes.ts';
import type { PriceSource } from './domain/prices.ts';
import type { Registry } from './domain/registry/registry.ts';
import type { StatsCache } from './domain/stats-cache.ts';
import { checkApiKey } from './http/api-keys.ts';
import { webhookOwner } from './webhooks/endpoints.ts';
import { bearerToken, keyMatches } from './http/auth.ts';
import { corsPolicy } from './http/cors.ts';
import { maskError } from './http/error-masking.ts';
import { graphqlBodyPlugin } from './http/graphql-body.ts';
import { builtGraphiqlPlugin, GRAPHIQL_OPTIONS } from './http/graphiql.ts';
import { responseCompressionPlugin } from './http/response-compression.ts';
import { graphqlLimitPlugins } from './http/graphql-limits.ts';
import { graphqlVariablesPlugin } from './http/graphql-variables.ts';
import type { Metrics } from './http/metrics.ts';
import { readiness, relayerHealth, type RelayerReport } from './http/health.ts';
import { rateLimitPlugin } from './http/rate-limit.ts';
import { readClients } from './http/read-client.ts';
import { sharedSubscriptionsPlugin } from './http/shared-subscriptions.ts';
import { sseResultsPlugin } from './http/sse-results.ts';
import { subscriptionLimitPlugin } from './http/subscription-limits.ts';
import type { TransportLimits } from './http/transport-limits.ts';
import { requestIdOf, requestLogPlugin } from './http/request-log.ts';
import { yogaLogging } from './http/yoga-logging.ts';
import { API_DOCS_PATHS, apiDocsPlugin } from './rest/api-docs.ts';
import { explorerPlugin } from './explorer/serve.ts';
import { restPlugin } from './rest/plugin.ts';
import { routeMatcher } from './rest/route-matcher.ts';
import { routes } from './rest/routes.ts';
import { runDocument } from './rest/run-document.ts';
import type { GraphQLContext } from './schema/context.ts';
import { deprecatesFields } from './schema/deprecations.ts';
import { createLoaders } from './schema/loaders.ts';
import { tracingPlugin } from './tracing.ts';
import { schema } from './schema/index.ts';
import { pubSubOrderEvents, type OrderPubSub } from './schema/pubsub.ts';

export interface AppDeps {
  config: Config;
  db: Database;
  registry: Registry;
  prices: PriceSource;
  statsCache: StatsCache;
  logger: Logger;
  /** The clock every rule reads; tests move it. */
  now?: () => Date;
  /** Readiness checks of optional dependencies by name (redis): reported by /ready, never failing it. */
  optionalChecks?: Record<string, () => Promise<unknown>>;
  /** Subscription fan-out; in-process unless built on Redis. */
  pubsub: OrderPubSub;
  /** Rate limits and subscription caps, shared with the WebSocket transport. */
  limits: TransportLimits;
  /** What /relayer/health reports on. */
  relayer: RelayerReport;
  /** Prometheus metrics, served at /metrics unless they have a port of their own. */
  metrics?: Metrics;
  /** Who wrote recently (read-your-writes with replicas, src/db/replicas/); shared through Redis when configured. */
  writers?: WriterWindow;
}

export type App = YogaServerInstance<Record<string, never>, GraphQLContext>;

export const GRAPHQL_ENDPOINT = '/graphql';

const DEPRECATES_FIELDS = deprecatesFields(schema);

/** The whole HTTP surface as one fetch-style handler: GraphQL at /graphql, REST everywhere else. */
export function createApp(deps: AppDeps): App {
  const now = deps.now ?? (() => new Date());
  const events = pubSubOrderEvents(deps.pubsub);
  const routing = createReadRouting(
    { prisma: deps.db.prisma, rows: deps.db.rows, orders: deps.db.orders, stats: deps.db.stats },
    deps.db.replicas,
    deps.writers,
  );
  const restRoutes = routeMatcher(routes);
  const clients = readClients(deps.config.trustProxy, (contextValue) => (contextValue as GraphQLContext).reads);
  const readsFor = (request: Request | undefined) => routing.forRequest(deps.db.replicas ? clients.clientOf(request) : undefined);
  // What the domain needs, the same for every request: the GraphQL context's and the REST creates' (writer).
  const domain: DomainDeps = {
    quotes: signingWith(deps.db.rows, deps.config.quoteSigningKey),
    escrow: deps.db.escrow,
    claims: deps.db.claims,
    registry: deps.registry,
    prices: deps.prices,
    config: deps.config,
    events,
    now,
  };
  const context = ({ request }: { request?: Request }): GraphQLContext => {
    const reads = readsFor(request);
    return {
      ...domain,
      orders: routedOrdersStore(reads, deps.db.orders),
      webhooks: deps.db.webhooks,
      stats: routedStatsStore(reads),
      reads,
      statsCache: deps.statsCache,
      pubsub: deps.pubsub,
      loaders: createLoaders(reads, deps.db.rows),
      isWatcher: keyMatches(bearerToken(request), deps.config.watcherKey),
      apiKey: checkApiKey(request, deps.config.apiKeys),
      webhookOwner: webhookOwner(request, deps.config.apiKeys),
    };
  };

  const builtGraphiql = builtGraphiqlPlugin(GRAPHQL_ENDPOINT);
  // /metrics on the API's port, unless metrics are off or have a port of their own.
  const metricsServePath = deps.metrics && deps.config.metrics.port === undefined ? '/metrics' : undefined;
  const yoga: App = createYoga<Record<string, never>, GraphQLContext>({
    schema,
    context,
    graphqlEndpoint: GRAPHQL_ENDPOINT,
    // Yoga answers any URL *ending* in its health path with an empty 200; ours is /health with
    // plain `Online`, served by the REST plugin, so Yoga's is moved out of the way.
    healthCheckEndpoint: `${GRAPHQL_ENDPOINT}/health`,
    landingPage: false,
    // The built page when there is one (src/http/graphiql.ts); else rendered from the npm package, no CDN.
    graphiql: builtGraphiql ? false : GRAPHIQL_OPTIONS,
    renderGraphiQL,
    logging: yogaLogging(deps.logger),
    maskedErrors: { maskError: (error, message) => maskError(error, message, deps.logger) },
    // One operation per request: batching would multiply every limit below by the batch size.
    batching: false,
    // Every POST body is read by graphqlBodyPlugin, which holds it to MAX_BODY_BYTES (413) with or without a
    // Content-Length; Yoga's own 25 MB limit would pipe each body through one more web stream.
    maxRequestBodySize: false,
    cors: corsPolicy(deps.config.corsOrigins),
    plugins: [
      // With replicas only: who the client is, and whether it wrote (src/db/replicas/).
      deps.db.replicas ? clients.plugin : {},
      requestLogPlugin(deps.logger),
      deps.config.compressResponses ? responseCompressionPlugin() : {},
      builtGraphiql ?? {},
      ...(deps.metrics?.plugins({
        graphqlEndpoint: GRAPHQL_ENDPOINT,
        servePath: metricsServePath,
        countDeprecatedFields: DEPRECATES_FIELDS,
        routePatternOf: restRoutes.patternOf,
      }) ?? []),
      deps.limits.rateLimiter ? rateLimitPlugin(deps.limits.rateLimiter, deps.limits.trustProxy) : {},
      graphqlBodyPlugin(),
      graphqlVariablesPlugin(),
      ...graphqlLimitPlugins({ production: deps.config.env === 'production' }),
      // One execution per event for all subscribers of an operation; inside the caps, which count each subscriber.
      sharedSubscriptionsPlugin(),
      // Each SSE event one write, with the bytes shared by the subscribers of one stream.
      sseResultsPlugin(),
      subscriptionLimitPlugin(deps.limits.subscriptions, { slots: deps.limits.sseStreamsPerIp, trustProxy: deps.limits.trustProxy }),
      // Each document (the REST layer's fixed ones, and clients' after Yoga's parse cache) is compiled
      // to a function once, then run without the generic executor's per-field interpretation.
      // Subscriptions keep the standard executor (the JIT's subscribe does not deliver Pothos' events).
      useGraphQlJit(
        {},
        {
          enableIf: (args) => getOperationAST(args.document, args.operationName)?.operation !== 'subscription',
          onError: (result) => deps.logger.warn({ errors: result.errors }, 'GraphQL JIT could not compile a document'),
        },
      ),
      // Spans only when an OTLP endpoint is configured (src/tracing.ts).
      deps.config.otlpEndpoint ? tracingPlugin(GRAPHQL_ENDPOINT, restRoutes.patternOf) : {},
      apiDocsPlugin(),
      explorerPlugin(),
      restPlugin({
        graphqlEndpoint: GRAPHQL_ENDPOINT,
        readOnlyPaths: new Set([...API_DOCS_PATHS, ...(metricsServePath ? [metricsServePath] : [])]),
        routes: restRoutes,
        apiKeys: deps.config.apiKeys,
        watcherKey: deps.config.watcherKey,
        registry: deps.registry,
        now,
        run: (request) => runDocument(yoga, request),
        orders: (request) => routedOrdersStore(readsFor(request), deps.db.orders),
        writer: (request) => {
          const reads = readsFor(request);
          return { deps: domain, apiKey: checkApiKey(request, deps.config.apiKeys), wrote: () => reads.wrote() };
        },
        health: (respond) => new respond('Online', { headers: { 'content-type': 'text/plain; charset=utf-8' } }),
        ready: (respond) => readiness({ database: () => deps.db.ping() }, deps.optionalChecks, respond),
        relayerHealth: () => relayerHealth({ prisma: deps.db.prisma, now, ...deps.relayer }),
        onInternalError: (error, request) =>
          deps.logger.error({ err: error, reqId: requestIdOf(request), method: request.method }, 'unhandled error'),
        onClientError: (error, request) =>
          deps.logger.info({ code: error.code, error: error.message, reqId: requestIdOf(request) }, 'client error'),
        onUnavailable: (error, request) =>
          deps.logger.warn({ err: (error as Error)?.message, reqId: requestIdOf(request) }, 'database unavailable'),
      }),
    ],
  });
  return yoga;
}
