import type { Server } from 'node:http';
import { GraphQLError, type DocumentNode, type ExecutionArgs } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import type { App } from './app.ts';

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

/**
 * GraphQL over WebSocket (the graphql-ws protocol) on the GraphQL path, through Yoga's own
 * pipeline (parse, validate, context, masking), beside the SSE transport Yoga serves itself.
 */
export function serveWebSockets(server: Server, app: App): { close(): Promise<void> } {
  const wsServer = new WebSocketServer({ server, path: app.graphqlEndpoint });
  const disposable = useServer(
    {
      execute: (args) => (args.rootValue as EnvelopedRoot).execute(args) as never,
      subscribe: (args) => (args.rootValue as EnvelopedRoot).subscribe(args) as never,
      onSubscribe: async (ctx, _id, params) => {
        const { schema, execute, subscribe, contextFactory, parse, validate } = app.getEnveloped({
          ...ctx,
          req: ctx.extra.request,
          socket: ctx.extra.socket,
          // Keys travel in connectionParams (browsers cannot set WebSocket headers) or the upgrade request.
          request: credentialsRequest(ctx.connectionParams, ctx.extra.request.headers.authorization),
          params,
        });
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
    },
    wsServer,
  );
  return {
    async close() {
      await disposable.dispose();
      await new Promise<void>((resolve) => wsServer.close(() => resolve()));
    },
  };
}
