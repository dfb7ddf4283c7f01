import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { getOperationAST, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { bearerToken } from './auth.ts';
import { clientIp } from './rate-limit.ts';

/**
 * With replicas only (src/db/replicas/): who the client is, so its reads follow its own writes, and
 * when it writes.
 */
export interface ReadClients {
  /** The client's identity: its API key's hash, else its address; undefined when neither is known. */
  clientOf(request: Request | undefined): string | undefined;
  /** Records each request's socket peer, and marks a client that runs a mutation as a writer. */
  plugin: Plugin;
}

export function readClients(
  trustProxy: Parameters<typeof clientIp>[2],
  readsOf: (contextValue: unknown) => { wrote(): void },
): ReadClients {
  // The socket's peer of each request, for the client's identity when no proxy header is trusted.
  const peers = new WeakMap<Request, string>();
  return {
    clientOf(request) {
      if (!request) return undefined;
      const token = bearerToken(request);
      if (token) return `key:${createHash('sha256').update(token).digest('base64url')}`;
      const ip = clientIp(request.headers.get('x-forwarded-for'), peers.get(request), trustProxy);
      return ip === 'unknown' ? undefined : `ip:${ip}`;
    },
    plugin: {
      onRequest({ request, serverContext }: { request: Request; serverContext: unknown }) {
        const address = (serverContext as { req?: IncomingMessage } | undefined)?.req?.socket?.remoteAddress;
        if (address) peers.set(request, address);
      },
      // A client that writes reads from the primary for a while. Marked before the write and again
      // after it: the window must run from the commit, however long the write took.
      onExecute({ args }: { args: { document: DocumentNode; operationName?: string | null; contextValue: unknown } }) {
        if (getOperationAST(args.document, args.operationName)?.operation !== 'mutation') return;
        const reads = readsOf(args.contextValue);
        reads.wrote();
        return { onExecuteDone: () => reads.wrote() };
      },
    },
  };
}
