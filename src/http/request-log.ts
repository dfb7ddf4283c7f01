import { randomUUID } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { requestContext } from './request-context.ts';

const ids = new WeakMap<Request, string>();
const ACCEPTABLE_ID = /^[A-Za-z0-9._-]{1,64}$/;

function chooseRequestId(given: string | null): string {
  return given && ACCEPTABLE_ID.test(given) ? given : randomUUID();
}

/** The request's id: the caller's `X-Request-Id` when it is sane, else a new UUID. */
export function requestIdOf(request: Request): string {
  let id = ids.get(request);
  if (!id) {
    id = chooseRequestId(request.headers.get('x-request-id'));
    ids.set(request, id);
  }
  return id;
}

/**
 * Gives every request an id, returns it as `X-Request-Id`, and writes one access-log line with it.
 * Query strings are not logged: they can carry user ids. Headers are not logged at all.
 */
export function requestLogPlugin(logger: Logger): Plugin {
  const started = new WeakMap<Request, number>();
  return {
    // The whole handling of a request runs inside its context, so every log line carries its id.
    instrumentation: {
      request: ({ request }, wrapped) => requestContext.run({ reqId: requestIdOf(request) }, wrapped),
    },
    onRequest({ request }) {
      started.set(request, performance.now());
    },
    onResponse({ request, response }) {
      const reqId = requestIdOf(request);
      response.headers.set('x-request-id', reqId);
      const level = response.status >= 500 ? 'error' : 'info';
      // Below the configured level the line is dropped: not built either.
      if (!logger.isLevelEnabled(level)) return;
      const ms = Math.round((performance.now() - (started.get(request) ?? performance.now())) * 10) / 10;
      const path = new URL(request.url).pathname;
      logger[level]({ reqId, method: request.method, path, status: response.status, ms }, 'request');
    },
  };
}
