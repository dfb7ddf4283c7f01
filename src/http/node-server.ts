import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Config } from '../config.ts';
import { MAX_BODY_BYTES } from './envelope.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The Node HTTP server in front of the app, with the socket-level limits (README, Hardening):
 * a connection that sends nothing or stalls mid-request is closed, keep-alive is bounded, and a
 * request the app cannot even turn into a URL (bad Host, absolute-form target) is a 400 envelope.
 */
export function createHttpServer(handler: Handler, limits: Config['http']): Server {
  const listener: Handler = (req, res) => {
    const problem = targetProblem(req);
    if (problem) return void sendEnvelope(res, 400, problem);
    handler(req, res);
  };
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // How often Node looks for connections past those timeouts (default 30 s): a tenth of the
      // shortest, so a stalled connection is closed close to its limit.
      connectionsCheckingInterval: Math.max(100, Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 10),
      // A missing Host is answered by us, in the envelope, not by Node with an empty 400.
      requireHostHeader: false,
    },
    listener,
  );
  server.maxRequestsPerSocket = limits.maxRequestsPerSocket;
  // `Expect: 100-continue` asks whether to send the body: one declared over the limit is refused before it
  // is sent (Node would say 100 Continue first), and the connection closed, since the body may follow anyway.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (Number(req.headers['content-length']) > MAX_BODY_BYTES) {
      return void sendEnvelope(res, 413, `body must be at most ${MAX_BODY_BYTES} bytes`, { connection: 'close' });
    }
    res.writeContinue();
    listener(req, res);
  });
  // Any other expectation: Node's own 417 has no body; ours is the envelope.
  server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) =>
    sendEnvelope(res, 417, 'the Expect header may only be 100-continue'),
  );
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => answerClientError(error, socket));
  return server;
}

const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** Why this request cannot be served as a URL of ours, or undefined when it can. */
function targetProblem(req: IncomingMessage): string | undefined {
  const host = req.headers.host;
  if (!host) return 'the Host header is required';
  if (!HOST.test(host)) return 'the Host header must be a host name or IP address with an optional port';
  const target = req.url ?? '';
  // Origin-form only: this is a server, not a proxy (absolute-form targets are for proxies).
  if (!target.startsWith('/') || target.startsWith('//')) return 'the request target must be a path starting with / (origin-form)';
  return undefined;
}

function sendEnvelope(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  const body = JSON.stringify({ status: 'Error', result: message });
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

/** Node's own early answers (malformed request, headers too large, too slow), in the envelope. */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
  const [status, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'request headers are too large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'the request was not received in time']
        : [400, 'malformed HTTP request'];
  const body = JSON.stringify({ status: 'Error', result: message });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
  destroyAfterFlush(socket);
}

/** How long a refused client gets to take our answer before its socket is destroyed anyway. */
const FLUSH_GRACE_MS = 1_000;

/**
 * end() only half-closes: a client that never closes its side (or never reads) would keep the socket,
 * and its descriptor, for as long as it likes. Destroyed once the answer is flushed, or after a short grace.
 */
function destroyAfterFlush(socket: Duplex): void {
  const destroy = () => {
    clearTimeout(timer);
    socket.destroy();
  };
  const timer = setTimeout(destroy, FLUSH_GRACE_MS);
  timer.unref();
  if (socket.writableFinished) return void destroy();
  socket.once('finish', destroy);
  socket.once('close', () => clearTimeout(timer));
}
