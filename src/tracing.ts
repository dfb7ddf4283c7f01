import { SpanKind, SpanStatusCode, context, propagation, trace, type Span } from '@opentelemetry/api';
import { getOperationAST, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { routeLabel, type RoutePatternOf } from './http/route-label.ts';

/**
 * OpenTelemetry traces (README, Operations): on only when OTEL_EXPORTER_OTLP_ENDPOINT is set, exported over
 * OTLP/HTTP. Without it the SDK is never loaded and no plugin is installed; @opentelemetry/api alone is a no-op.
 */

const TRACER = 'orderbook-gateway';

export interface Tracing {
  /** Sends the spans still buffered, then stops exporting. */
  shutdown(): Promise<void>;
}

/** Starts the SDK: W3C trace context, spans of async work kept in order, Prisma's spans, OTLP/HTTP export. */
export async function startTracing(env: Record<string, string | undefined>): Promise<Tracing | undefined> {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()) return undefined;
  // Loaded here and only here: a server without an endpoint pays nothing for the SDK.
  const [sdk, otlp, asyncHooks, core, resources, prisma] = await Promise.all([
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
    import('@prisma/instrumentation'),
  ]);
  const provider = new sdk.TracerProvider({
    resource: resources.resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME?.trim() || TRACER }),
    // The exporter reads OTEL_EXPORTER_OTLP_ENDPOINT (and the other OTEL_EXPORTER_OTLP_* variables) itself.
    spanProcessors: [new sdk.BatchSpanProcessor({ exporter: new otlp.OTLPTraceExporter() })],
  });
  context.setGlobalContextManager(new asyncHooks.AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new core.W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  // Prisma Client's own spans (operation, serialisation, each SQL statement with its text).
  const instrumentation = new prisma.PrismaInstrumentation();
  instrumentation.setTracerProvider(provider);
  instrumentation.enable();
  return {
    async shutdown() {
      instrumentation.disable();
      await provider.shutdown();
    },
  };
}

/** The trace the current code runs in, for log lines (pino's mixin); undefined when tracing is off. */
export function activeTraceIds(): { traceId: string; spanId: string } | undefined {
  const span = trace.getActiveSpan();
  if (!span) return undefined;
  const { traceId, spanId } = span.spanContext();
  return { traceId, spanId };
}

/**
 * A server span per HTTP request (parent: the caller's `traceparent`, if any), named by the route pattern, and
 * a span per GraphQL execution (the REST layer's documents included) under it; resolvers, and so Prisma's
 * spans, run inside the latter. Goes after the GraphQL JIT in the plugin list: it wraps the compiled executor.
 */
export function tracingPlugin(graphqlEndpoint: string, routePatternOf: RoutePatternOf): Plugin {
  const tracer = trace.getTracer(TRACER);
  const spans = new WeakMap<Request, Span>();
  return {
    instrumentation: {
      request({ request }, wrapped) {
        const url = new URL(request.url);
        const route = routeLabel(url.pathname, request.method, graphqlEndpoint, routePatternOf);
        const parent = propagation.extract(context.active(), Object.fromEntries(request.headers));
        const span = tracer.startSpan(
          `${request.method} ${route}`,
          {
            kind: SpanKind.SERVER,
            attributes: { 'http.request.method': request.method, 'http.route': route, 'url.path': url.pathname },
          },
          parent,
        );
        spans.set(request, span);
        return context.with(trace.setSpan(parent, span), wrapped);
      },
    },
    onResponse({ request, response }) {
      const span = spans.get(request);
      if (!span) return;
      span.setAttribute('http.response.status_code', response.status);
      if (response.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
    onExecute({ args, executeFn, setExecuteFn }) {
      const operation = getOperationAST(args.document as DocumentNode, args.operationName);
      const type = operation?.operation ?? 'query';
      const name = operation?.name?.value ?? 'anonymous';
      setExecuteFn((executeArgs) =>
        tracer.startActiveSpan(
          `graphql.execute ${type} ${name}`,
          { attributes: { 'graphql.operation.type': type, 'graphql.operation.name': name } },
          async (span) => {
            try {
              const result = await executeFn(executeArgs);
              const errors = 'errors' in result ? result.errors : undefined;
              if (errors?.length) span.setAttribute('graphql.error.count', errors.length);
              return result;
            } catch (error) {
              span.recordException(error as Error);
              span.setStatus({ code: SpanStatusCode.ERROR });
              throw error;
            } finally {
              span.end();
            }
          },
        ),
      );
    },
  };
}
