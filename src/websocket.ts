import type { IncomingMessage, Server } from 'node:http';
import { GraphQLError, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { CloseCode, handleProtocols, makeServer, type ServerOptions } from 'graphql-ws';
import type { Logger } from 'pino';
import { WebSocketServer, type WebSocket } from 'ws';
import type { App } from './app.ts';
import type { ErrorCode } from './domain/errors.ts';
import { bearerToken } from './http/auth.ts';
import { clientIp } from './http/rate-limit.ts';
import { attachDirectSink, sharedJson } from './http/shared-subscriptions.ts';
import { connectionSlots, type SubscriptionContext, type SubscriptionSlots } from './http/subscription-limits.ts';
import type { TransportLimits } from './http/transport-limits.ts';
import { MAX_BODY_BYTES } from './http/envelope.ts';

interface EnvelopedRoot {
  execute: (args: ExecutionArgs) => unknown;
  subscribe: (args: ExecutionArgs) => unknown;
}

/** A stand-in request carrying only the caller's Authorization, for the context's key checks. */
function credentialsRequest(connectionParams: Readonly<Record<string, unknown>> | undefined, header: string | undefined) {
  const fromParams = connectionParams?.authorization ?? connectionParams?.Authorization;
  const authorization = typeof fromParams === 'string' ? fromParams : header;
  // POST: Yoga refuses mutations on a GET request, and a WebSocket operation is no GET.
  return new Request('http://websocket/graphql', { method: 'POST', headers: authorization ? { authorization } : {} });
}

interface Extra {
  socket: WebSocket;
  request: IncomingMessage;
}

/**
 * A `next` payload already serialised for every subscriber of its stream (src/http/shared-subscriptions.ts):
 * graphql-ws stringifies each message itself, so the payload goes in as a marker and the socket's send
 * puts the shared text in its place. graphql-ws stringifies a message and sends it in one step, so the
 * text waiting in `pendingPayload` is always that of the message being sent.
 */
class SharedPayload {
  constructor(readonly json: string) {}
}
const PAYLOAD_MARKER = '\u0000shared-payload';
const MARKER_JSON = JSON.stringify(PAYLOAD_MARKER);
let pendingPayload: string | undefined;

function withSharedPayload(data: string): string {
  if (pendingPayload === undefined) return data;
  const at = data.lastIndexOf(MARKER_JSON);
  const json = pendingPayload;
  pendingPayload = undefined;
  return at < 0 ? data : data.slice(0, at) + json + data.slice(at + MARKER_JSON.length);
}

/**
 * The `next` messages of a shared stream written straight to the socket (src/http/shared-subscriptions.ts,
 * DirectSink): the same text graphql-ws would send, one send at a time as graphql-ws does (it awaits each),
 * and none once the client completed the operation or the socket is closing.
 */
function directNext(
  request: object,
  { ctx, id, socket }: { ctx: { subscriptions: Record<string, unknown> }; id: string; socket: WebSocket },
) {
  const prefix = `{"id":${JSON.stringify(id)},"type":"next","payload":`;
  let sending = false;
  let direct: { drain(): void } | undefined;
  const sent = () => {
    sending = false;
    direct?.drain();
  };
  // A closing socket or a completed operation takes results and drops them, as graphql-ws' own send does.
  const gone = () => socket.readyState !== socket.OPEN || !(id in ctx.subscriptions);
  direct = attachDirectSink(request, {
    ready: () => !sending || gone(),
    deliver(result) {
      if (gone()) return;
      sending = true;
      socket.send(`${prefix}${sharedJson(result)}}`, sent);
    },
  });
}

/** How often a silent client is pinged, and how long its pong may take before the socket is dropped. */
const KEEP_ALIVE_MS = 12_000;

/**
 * GraphQL over WebSocket (the graphql-ws protocol) on the GraphQL path, through Yoga's own
 * pipeline (parse, validate with the GraphQL limits, context, subscription caps, masking), beside
 * the SSE transport Yoga serves itself. HTTP's other limits apply here too: a message is at most
 * the body limit (ws closes the socket with 1009 as soon as a frame declares more, before reading
 * it), and each operation spends one request of the caller's rate budget. A refused operation gets
 * its own error; the socket stays.
 */
export function serveWebSockets(
  server: Server,
  app: App,
  { limits, logger }: { limits: TransportLimits; logger: Logger },
): { close(): Promise<void> } {
  // The caller's IP as the HTTP rate limiter identifies it (X-Forwarded-For only with TRUST_PROXY).
  const ipOf = (request: IncomingMessage) =>
    clientIp(request.headers['x-forwarded-for'] as string | undefined, request.socket.remoteAddress, limits.trustProxy);
  const perIp = limits.webSocketsPerIp;
  const wsServer = new WebSocketServer({
    server,
    path: app.graphqlEndpoint,
    maxPayload: MAX_BODY_BYTES,
    handleProtocols,
    // Refused before the upgrade is accepted. ws completes the upgrade, and emits 'connection' (where the
    // slot is taken), in the same tick as this answer, so concurrent upgrades cannot overshoot the cap.
    verifyClient: ({ req }, done) => {
      if (perIp.count(ipOf(req)) < perIp.limit) return done(true);
      const body = JSON.stringify({ status: 'Error', result: perIp.refusal() });
      done(false, 429, body, { 'Content-Type': 'application/json; charset=utf-8' });
    },
  });
  const rateLimited = (message: string) => {
    const code: ErrorCode = 'RATE_LIMITED';
    return new GraphQLError(message, { extensions: { code } });
  };
  // One count per socket, kept with graphql-ws' per-socket context.
  const perSocket = new WeakMap<object, SubscriptionSlots>();
  // Each operation's socket and id, by the stand-in request of its context: what a direct sink writes to.
  const operations = new WeakMap<object, { ctx: { subscriptions: Record<string, unknown> }; id: string; socket: WebSocket }>();
  const options: ServerOptions<Record<string, unknown> | undefined, Extra> = {
    execute: (args) => (args.rootValue as EnvelopedRoot).execute(args) as never,
    subscribe: async (args) => {
      const result = await (args.rootValue as EnvelopedRoot).subscribe(args);
      const request = (args.contextValue as { request?: object } | undefined)?.request;
      const operation = request && operations.get(request);
      if (operation) directNext(request, operation);
      return result as never;
    },
    onNext: (_ctx, _id, _payload, _args, result) => {
      const json = sharedJson(result as ExecutionResult);
      return json === undefined ? undefined : (new SharedPayload(json) as never);
    },
    jsonMessageReplacer: (_key, value) => {
      if (!(value instanceof SharedPayload)) return value;
      pendingPayload = value.json;
      return PAYLOAD_MARKER;
    },
    // connection_init spends a request of the caller's budget like any operation: a client past it
    // cannot keep opening sessions. Closed with 4429 (graphql-ws then has nothing more to send).
    onConnect: async (ctx) => {
      if (!limits.rateLimiter) return true;
      const upgrade = ctx.extra.request;
      const request = credentialsRequest(ctx.connectionParams, upgrade.headers.authorization);
      const decision = await limits.rateLimiter.consume({ token: bearerToken(request), ip: ipOf(upgrade) });
      if (decision.allowed) return true;
      ctx.extra.socket.close(4429, decision.message);
      return false;
    },
    onSubscribe: async (ctx, id, params) => {
      const upgrade = ctx.extra.request;
      const request = credentialsRequest(ctx.connectionParams, upgrade.headers.authorization);
      if (limits.rateLimiter) {
        const decision = await limits.rateLimiter.consume({ token: bearerToken(request), ip: ipOf(upgrade) });
        if (!decision.allowed) return [rateLimited(decision.message)];
      }
      let connectionSubscriptions = perSocket.get(ctx);
      if (!connectionSubscriptions) {
        connectionSubscriptions = connectionSlots(limits.subscriptionsPerConnection);
        perSocket.set(ctx, connectionSubscriptions);
      }
      const { schema, execute, subscribe, contextFactory, parse, validate } = app.getEnveloped({
        ...ctx,
        req: upgrade,
        socket: ctx.extra.socket,
        // Keys travel in connectionParams (browsers cannot set WebSocket headers) or the upgrade request.
        request,
        params,
        connectionSubscriptions,
      } satisfies SubscriptionContext & Record<string, unknown>);
      operations.set(request, { ctx, id, socket: ctx.extra.socket });
      let document: DocumentNode;
      try {
        document = parse(params.query);
      } catch (error) {
        // A bad operation is that operation's error; the socket and its other subscriptions stay.
        if (error instanceof GraphQLError) return [error];
        throw error;
      }
      const args = {
        schema,
        operationName: params.operationName,
        document,
        variableValues: params.variables,
        contextValue: await contextFactory(),
        rootValue: { execute, subscribe },
      };
      const errors = validate(args.schema, args.document);
      return errors.length ? errors : args;
    },
  };
  const protocol = makeServer(options);

  // graphql-ws' own ws glue (graphql-ws/use/ws) prints every socket error with its stack to stderr;
  // a client's oversized or malformed frame is the client's error, logged here as such.
  wsServer.on('error', (err) => logger.error({ err }, 'WebSocket server error'));
  wsServer.on('connection', (socket, request) => {
    const ip = ipOf(request);
    perIp.take(ip);
    socket.once('close', () => perIp.release(ip));
    socket.once('error', (err) => logger.info({ err: err.message }, 'WebSocket closed: the client broke the protocol'));
    let pongWait: NodeJS.Timeout | undefined;
    const pings = setInterval(() => {
      if (socket.readyState !== socket.OPEN) return;
      pongWait = setTimeout(() => socket.terminate(), KEEP_ALIVE_MS);
      socket.once('pong', () => clearTimeout(pongWait));
      socket.ping();
    }, KEEP_ALIVE_MS);
    const closed = protocol.opened(
      {
        protocol: socket.protocol,
        send: (data) =>
          new Promise<void>((resolve, reject) => {
            const message = withSharedPayload(data);
            if (socket.readyState !== socket.OPEN) return resolve();
            socket.send(message, (err) => (err ? reject(err) : resolve()));
          }),
        close: (code, reason) => socket.close(code, reason),
        onMessage: (handle) =>
          socket.on('message', async (data) => {
            try {
              await handle(String(data));
            } catch (err) {
              logger.error({ err }, 'WebSocket message failed');
              socket.close(CloseCode.InternalServerError, 'Internal server error');
            }
          }),
      },
      { socket, request },
    );
    socket.once('close', (code, reason) => {
      clearTimeout(pongWait);
      clearInterval(pings);
      void closed(code, String(reason));
    });
  });
  return {
    async close() {
      for (const client of wsServer.clients) client.close(1001, 'Going away');
      await new Promise<void>((resolve) => wsServer.close(() => resolve()));
    },
  };
}
