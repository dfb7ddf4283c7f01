import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { useGraphQlJit } from '@envelop/graphql-jit';
import { PothosValidationError } from '@pothos/core';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import {
  GraphQLError,
  getOperationAST,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  type DocumentNode,
  type GraphQLSchema,
} from 'graphql';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import { createReadRouting, routedOrdersStore, type WriterWindow } from './db/replicas.ts';
import { routedStatsStore } from './db/stats-store.ts';
import { DomainError } from './domain/errors.ts';
import type { PriceSource } from './domain/prices.ts';
import type { Registry } from './domain/registry/registry.ts';
import type { StatsCache } from './domain/stats-cache.ts';
import { isWriterAllowed } from './http/api-keys.ts';
import { webhookOwner } from './webhooks/endpoints.ts';
import { bearerToken, keyMatches } from './http/auth.ts';
import { CodedError, INTERNAL_MESSAGE, isErrorCode, toClientError } from './http/client-error.ts';
import { graphqlBodyPlugin } from './http/graphql-body.ts';
import { graphqlLimitPlugins } from './http/graphql-limits.ts';
import { graphqlVariablesPlugin } from './http/graphql-variables.ts';
import type { Metrics } from './http/metrics.ts';
import { readiness, relayerHealth, type RelayerReport } from './http/health.ts';
import { clientIp, rateLimitPlugin } from './http/rate-limit.ts';
import { subscriptionLimitPlugin } from './http/subscription-limits.ts';
import type { TransportLimits } from './http/transport-limits.ts';
import { requestIdOf, requestLogPlugin } from './http/request-log.ts';
import { documents } from './rest/documents.ts';
import { apiDocsPlugin } from './rest/api-docs.ts';
import { restPlugin } from './rest/plugin.ts';
import type { RunDocument } from './rest/routes.ts';
import type { GraphQLContext } from './schema/context.ts';
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
  /** Who wrote recently (read-your-writes with replicas, src/db/replicas.ts); shared through Redis when configured. */
  writers?: WriterWindow;
}

export type App = YogaServerInstance<Record<string, never>, GraphQLContext>;

export const GRAPHQL_ENDPOINT = '/graphql';

/** What GraphiQL opens with: a query that answers on an empty book too, and points at the rest. */
export const GRAPHIQL_EXAMPLE = `# The order book's GraphQL API. Press the run button (or Ctrl-Enter).
# Every type and field is described in the Documentation Explorer (the book icon, top left).
query LatestOrders {
  orders(limit: 5) {
    total
    data {
      orderId
      status
      sourceIntent { chain asset amount }
      destinationIntent { chain asset amount }
      createdAt
    }
  }
  stats {
    last24h { totalOrders completedOrders totalVolumeUsd }
  }
  assets { id symbol decimals priceUsd }
}

# Next: createQuote, then createOrder with the quote's amounts (see the README's curl walk-through),
# and follow an order live with: subscription { orderUpdated(orderId: "...") { status updatedAt } }
`;

/** Whether any field or enum value of the schema is deprecated (the metrics count their use only then). */
export function deprecatesFields(graphqlSchema: GraphQLSchema): boolean {
  return Object.values(graphqlSchema.getTypeMap()).some(
    (type) =>
      !type.name.startsWith('__') &&
      (((isObjectType(type) || isInterfaceType(type)) && Object.values(type.getFields()).some((f) => f.deprecationReason != null)) ||
        (isInputObjectType(type) && Object.values(type.getFields()).some((f) => f.deprecationReason != null)) ||
        (isEnumType(type) && type.getValues().some((v) => v.deprecationReason != null))),
  );
}

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
  // The socket's peer of each request, for the client's identity when no proxy header is trusted.
  const peers = new WeakMap<Request, string>();
  const readClient = (request: Request | undefined): string | undefined => {
    if (!request) return undefined;
    const token = bearerToken(request);
    if (token) return `key:${createHash('sha256').update(token).digest('base64url')}`;
    const ip = clientIp(request.headers.get('x-forwarded-for'), peers.get(request), deps.config.trustProxy);
    return ip === 'unknown' ? undefined : `ip:${ip}`;
  };
  const readsFor = (request: Request | undefined) => routing.forRequest(deps.db.replicas ? readClient(request) : undefined);
  const context = ({ request }: { request?: Request }): GraphQLContext => {
    const reads = readsFor(request);
    return {
      quotes: deps.db.rows,
      orders: routedOrdersStore(reads, deps.db.orders),
      escrow: deps.db.escrow,
      claims: deps.db.claims,
      webhooks: deps.db.webhooks,
      stats: routedStatsStore(reads),
      reads,
      registry: deps.registry,
      prices: deps.prices,
      config: deps.config,
      statsCache: deps.statsCache,
      pubsub: deps.pubsub,
      loaders: createLoaders(reads, deps.db.rows),
      events,
      now,
      isWatcher: keyMatches(bearerToken(request), deps.config.watcherKey),
      canWrite: isWriterAllowed(request, deps.config.apiKeys),
      webhookOwner: webhookOwner(request, deps.config.apiKeys),
    };
  };

  const yoga: App = createYoga<Record<string, never>, GraphQLContext>({
    schema,
    context,
    graphqlEndpoint: GRAPHQL_ENDPOINT,
    // Yoga answers any URL *ending* in its health path with an empty 200; ours is /health with
    // plain `Online`, served by the REST plugin, so Yoga's is moved out of the way.
    healthCheckEndpoint: `${GRAPHQL_ENDPOINT}/health`,
    landingPage: false,
    // GraphiQL's GET subscriptions must carry the CSRF header like any other client.
    graphiql: {
      title: 'Order book GraphQL',
      additionalHeaders: { 'x-graphql-yoga-csrf': 'graphiql' },
      defaultQuery: GRAPHIQL_EXAMPLE,
    },
    // GraphiQL's assets come from the npm package, not a CDN: the machines have no internet.
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
      // With replicas only: who the client is, and whether it wrote (src/db/replicas.ts).
      deps.db.replicas
        ? {
            onRequest({ request, serverContext }: { request: Request; serverContext: unknown }) {
              const address = (serverContext as { req?: IncomingMessage } | undefined)?.req?.socket?.remoteAddress;
              if (address) peers.set(request, address);
            },
            // A client that writes reads from the primary for a while. Marked before the write and again
            // after it: the window must run from the commit, however long the write took.
            onExecute({ args }: { args: { document: DocumentNode; operationName?: string | null; contextValue: unknown } }) {
              if (getOperationAST(args.document, args.operationName)?.operation !== 'mutation') return;
              const reads = (args.contextValue as GraphQLContext).reads;
              reads.wrote();
              return { onExecuteDone: () => reads.wrote() };
            },
          }
        : {},
      requestLogPlugin(deps.logger),
      ...(deps.metrics?.plugins({
        graphqlEndpoint: GRAPHQL_ENDPOINT,
        servePath: deps.config.metrics.port === undefined ? '/metrics' : undefined,
        countDeprecatedFields: DEPRECATES_FIELDS,
      }) ?? []),
      deps.limits.rateLimiter ? rateLimitPlugin(deps.limits.rateLimiter, deps.limits.trustProxy) : {},
      graphqlBodyPlugin(),
      graphqlVariablesPlugin(),
      ...graphqlLimitPlugins({ production: deps.config.env === 'production' }),
      subscriptionLimitPlugin(deps.limits.subscriptions),
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
      deps.config.otlpEndpoint ? tracingPlugin(GRAPHQL_ENDPOINT) : {},
      apiDocsPlugin(),
      restPlugin({
        graphqlEndpoint: GRAPHQL_ENDPOINT,
        apiKeys: deps.config.apiKeys,
        watcherKey: deps.config.watcherKey,
        registry: deps.registry,
        now,
        run: (request) => runDocument(yoga, request),
        orders: (request) => routedOrdersStore(readsFor(request), deps.db.orders),
        health: () => new Response('Online', { headers: { 'content-type': 'text/plain; charset=utf-8' } }),
        ready: () => readiness({ database: () => deps.db.ping() }, deps.optionalChecks),
        relayerHealth: () => relayerHealth({ prisma: deps.db.prisma, now, ...deps.relayer }),
        onInternalError: (error, request) =>
          deps.logger.error({ err: error, reqId: requestIdOf(request), method: request.method }, 'unhandled error'),
        onUnavailable: (error, request) =>
          deps.logger.warn({ err: (error as Error)?.message, reqId: requestIdOf(request) }, 'database unavailable'),
      }),
    ],
  });
  return yoga;
}

/**
 * Runs a fixed document through Yoga's own pipeline (plugins, masking) in-process, so REST and
 * GraphQL share every resolver and rule.
 */
export function runDocument(yoga: App, request: Request): RunDocument {
  return async (name, variables) => {
    const { execute, contextFactory, schema: enveloped } = yoga.getEnveloped({ request });
    const contextValue = (await contextFactory()) as unknown as GraphQLContext;
    const result = await execute({ schema: enveloped, document: documents[name], variableValues: variables, contextValue });
    if (Symbol.asyncIterator in result) throw new Error('unexpected streamed result');
    const [first] = result.errors ?? [];
    if (first) throw asClientError(first);
    return { data: (result.data ?? {}) as Record<string, unknown>, cacheMaxAgeSecs: contextValue.cacheMaxAgeSecs };
  };
}

/** A document's first error, as the client error it is (masking left its code and message). */
function asClientError(error: GraphQLError): CodedError {
  const code = error.extensions?.code;
  if (isErrorCode(code)) return new CodedError(code, code === 'INTERNAL' ? INTERNAL_MESSAGE : error.message);
  // The documents are fixed and valid: an error outside any field can only be the variables refused.
  if (!error.originalError && !error.path) return new CodedError('BAD_REQUEST', error.message);
  return new CodedError('INTERNAL', INTERNAL_MESSAGE);
}

/**
 * Yoga's own log calls. It logs every error the masking below replaced, at "error"; but the masking
 * logs what is internal itself, and a client's mistake is no error of ours: those are logged at info,
 * with the client's text in a field of its own, never in the message.
 */
function yogaLogging(logger: Logger) {
  const text = (args: unknown[]) => args.map(String).join(' ');
  return {
    debug: (...args: unknown[]) => logger.debug(text(args)),
    info: (...args: unknown[]) => logger.info(text(args)),
    warn: (...args: unknown[]) => logger.warn(text(args)),
    error: (...args: unknown[]) => {
      const [first] = args;
      const original = first instanceof GraphQLError ? first.originalError : first;
      if (original instanceof DomainError && original.code !== 'UNAVAILABLE') {
        logger.info({ code: original.code, error: original.message }, 'client error');
      } else {
        logger.debug({ err: first }, 'graphql error (logged where it was masked)');
      }
    },
  };
}

/**
 * Only client errors (src/http/client-error.ts) reach clients with their message; GraphQL's own
 * errors (syntax, validation) pass as they are; anything else is logged and masked.
 */
function maskError(error: unknown, message: string, logger: Logger): Error {
  if (error instanceof GraphQLError && !error.originalError) return error;
  // A variable a scalar could not parse (its parser threw): the client's input, not our failure.
  if (error instanceof GraphQLError && !error.path && error.message.startsWith('Variable "$')) {
    return new GraphQLError(error.message, { nodes: error.nodes, extensions: { code: 'BAD_REQUEST' } });
  }
  const original = error instanceof GraphQLError ? error.originalError : error;
  // plugin-relay's decoding of a cursor the client made up or mangled.
  if (original instanceof PothosValidationError && /cursor/i.test(original.message)) {
    const gqlError = error instanceof GraphQLError ? error : undefined;
    return new GraphQLError('after and before must be cursors this API returned (edges.cursor, pageInfo.startCursor or endCursor)', {
      nodes: gqlError?.nodes,
      path: gqlError?.path,
      extensions: { code: 'BAD_REQUEST' },
    });
  }
  const client = toClientError(original);
  if (client.code === 'INTERNAL') {
    logger.error({ err: original }, 'internal error in a resolver');
    return new GraphQLError(message, { extensions: { code: 'INTERNAL' } });
  }
  if (client.code === 'UNAVAILABLE') {
    logger.warn({ err: (original as Error)?.message }, 'database unavailable');
    return new GraphQLError(client.message, { extensions: { code: client.code } });
  }
  const gqlError = error instanceof GraphQLError ? error : undefined;
  return new GraphQLError(client.message, { nodes: gqlError?.nodes, path: gqlError?.path, extensions: { code: client.code } });
}

/**
 * CORS: any origin by default, or only those in CORS_ORIGINS; never with credentials, since callers
 * authenticate with a bearer key, not cookies (an origin reflected with credentials would let any
 * site act with a visitor's cookies). README, Hardening.
 */
function corsPolicy(allowed: string[] | undefined) {
  const policy = {
    credentials: false,
    methods: ['GET', 'POST', 'DELETE'],
    allowedHeaders: ['authorization', 'content-type', 'accept', 'x-request-id', 'x-graphql-yoga-csrf'],
    exposedHeaders: ['x-request-id', 'retry-after', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'],
    maxAge: 600,
  };
  if (!allowed) return { ...policy, origin: '*' };
  return (request: Request) => {
    const origin = request.headers.get('origin');
    return origin !== null && allowed.includes(origin) ? { ...policy, origin: [origin] } : false;
  };
}
