import type { Plugin } from 'graphql-yoga';
import { DomainError, NotFoundError } from '../domain/errors.ts';
import { CodedError, toClientError } from '../http/client-error.ts';
import { apiKeyMessage, checkApiKey } from '../http/api-keys.ts';
import { bearerToken, keyMatches } from '../http/auth.ts';
import type { Registry } from '../domain/registry/registry.ts';
import type { OrdersStore } from '../db/orders-store.ts';
import { envelope, envelopeJson, errorEnvelope, readJsonBody } from '../http/envelope.ts';
import type { RouteMatcher } from './route-matcher.ts';
import type { RouteWriter, RunDocument } from './route.ts';

export interface RestOptions {
  graphqlEndpoint: string;
  /** Paths other plugins serve to GET and HEAD only (the API document, /docs, /metrics): any other method is a 405. */
  readOnlyPaths: ReadonlySet<string>;
  /** The route table's matcher (src/rest/routes.ts). */
  routes: RouteMatcher;
  apiKeys: readonly string[];
  /** Escrow-event ingestion's key; unset, every event is refused. */
  watcherKey: string | undefined;
  registry: Registry;
  now: () => Date;
  run: (request: Request) => RunDocument;
  /** The request's reads of orders, routed as its GraphQL context's are (replica or primary). */
  orders: (request: Request) => OrdersStore;
  /** The domain's dependencies for the request, as its GraphQL context carries them. */
  writer: (request: Request) => RouteWriter;
  /**
   * Plain-text liveness (`Online`) and readiness (which dependency is down). `respond` is the server's own
   * Response: Node's global one carries its body as a web stream, which costs more than the rest of the answer.
   */
  health: (respond: typeof Response) => Response;
  ready: (respond: typeof Response) => Promise<Response>;
  relayerHealth: () => Promise<Response>;
  onInternalError: (error: unknown, request: Request) => void;
  /**
   * The database could not answer a path that runs no GraphQL (a rendered page): GraphQL's error masking
   * logs that for the document paths.
   */
  onUnavailable: (error: unknown, request: Request) => void;
  /**
   * A route that runs no GraphQL (a create, a rendered page) refused the request: logged as Yoga's error hook
   * logs a document's refusal (src/http/yoga-logging.ts), so every refused request leaves the same line.
   */
  onClientError: (error: DomainError, request: Request) => void;
}

/** What /graphql answers: queries over GET, everything over POST; OPTIONS is CORS' preflight. */
const GRAPHQL_METHODS = new Set(['GET', 'HEAD', 'POST', 'OPTIONS']);

/**
 * Answers every path but the GraphQL endpoint: the REST paths (README), health, and the envelope for
 * unknown paths (404) and wrong methods (405 with Allow).
 */
export function restPlugin(options: RestOptions): Plugin {
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (url.pathname === options.graphqlEndpoint) {
        // Before Yoga's own parsing, which would answer a PUT with a CSRF refusal or a GraphQL error.
        if (!GRAPHQL_METHODS.has(request.method)) {
          const message = `method ${request.method} is not allowed on ${url.pathname}; use GET, POST`;
          // An error envelope, so the metrics count it by its code as Yoga's own refusals are.
          endResponse(errorEnvelope({ code: 'METHOD_NOT_ALLOWED', message }, { allow: 'GET, POST' }, fetchAPI.Response));
        }
        return;
      }
      endResponse(await handle(options, request, url, fetchAPI.Response));
    },
  };
}

async function handle(options: RestOptions, request: Request, url: URL, respond: typeof Response): Promise<Response> {
  /** A route took the request: what it refuses is logged as a client error. */
  let routed = false;
  try {
    if (url.pathname === '/health') return allowOnly(request, respond, () => options.health(respond));
    if (url.pathname === '/ready') return await allowOnlyAsync(request, respond, () => options.ready(respond));
    if (url.pathname === '/relayer/health') return await allowOnlyAsync(request, respond, options.relayerHealth);

    if (options.readOnlyPaths.has(url.pathname) && request.method !== 'GET' && request.method !== 'HEAD') {
      return envelope(405, `method ${request.method} is not allowed on ${url.pathname}; use GET`, { allow: 'GET' }, respond);
    }
    const matching = options.routes.matches(url.pathname);
    if (matching.length === 0) throw new NotFoundError(`no such path: ${request.method} ${url.pathname}`);
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    const match = matching.find((m) => m.route.method === method);
    if (!match) {
      const allow = [...new Set(matching.map((m) => m.route.method))].join(', ');
      return envelope(405, `method ${request.method} is not allowed on ${url.pathname}; use ${allow}`, { allow }, respond);
    }
    const keyCheck = match.route.write ? checkApiKey(request, options.apiKeys) : 'ok';
    if (keyCheck !== 'ok') {
      const action = method === 'GET' ? 'this request' : 'this write';
      return envelope(401, apiKeyMessage(keyCheck, action), { 'www-authenticate': 'Bearer' }, respond);
    }
    // The resolver checks the key too (GraphQL clients); here it comes before the body is read, as for writes.
    if (match.route.watcher && !keyMatches(bearerToken(request), options.watcherKey)) {
      return envelope(401, 'recording escrow events needs Authorization: Bearer <WATCHER_KEY>', { 'www-authenticate': 'Bearer' }, respond);
    }
    routed = true;
    const body =
      match.route.body === true
        ? await readJsonBody(request)
        : match.route.body === 'optional' && request.headers.has('content-type')
          ? await readJsonBody(request, { emptyIsNone: true })
          : undefined;
    const result = await match.route.handle(
      {
        params: match.params,
        query: url.searchParams,
        body,
        registry: options.registry,
        now: options.now(),
        orders: () => options.orders(request),
        writer: () => options.writer(request),
      },
      options.run(request),
    );
    if (result.response) return request.method === 'HEAD' ? await headersOnly(result.response, respond) : result.response;
    if (result.json !== undefined) return envelopeJson(result.status, result.json, result.headers, respond);
    return envelope(result.status, result.result, result.headers, respond);
  } catch (error) {
    const clientError = toClientError(error);
    if (clientError.code === 'INTERNAL') options.onInternalError(error, request);
    // A document path's error arrives as a CodedError, already logged by Yoga's masking and logging.
    else if (!(error instanceof CodedError)) {
      if (clientError.code === 'UNAVAILABLE') options.onUnavailable(error, request);
      // An unknown path or a wrong method is no route's refusal.
      else if (routed && error instanceof DomainError) options.onClientError(error, request);
    }
    return errorEnvelope(clientError, {}, respond);
  }
}

/**
 * A HEAD gets a stream's status and headers without its body. Node drops a HEAD's body as it is written,
 * so the stream never waits for the client: left running, an export would read every page for nothing.
 */
async function headersOnly(response: Response, respond: typeof Response): Promise<Response> {
  await response.body?.cancel();
  return new respond(null, { status: response.status, headers: response.headers });
}

/** The health routes answer GET and HEAD; any other method is a 405 naming them. */
function allowOnly(request: Request, respond: typeof Response, answer: () => Response): Response {
  if (request.method === 'GET' || request.method === 'HEAD') return answer();
  return envelope(405, `method ${request.method} is not allowed; use GET`, { allow: 'GET' }, respond);
}

async function allowOnlyAsync(request: Request, respond: typeof Response, answer: () => Promise<Response>) {
  if (request.method === 'GET' || request.method === 'HEAD') return answer();
  return allowOnly(request, respond, () => new respond());
}
