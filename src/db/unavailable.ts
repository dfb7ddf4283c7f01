/**
 * Whether an error means "the database cannot answer right now" (answered 503 with Retry-After)
 * rather than a bug (500). Covers Prisma's connection codes, the pool's own errors and time-outs
 * (connecting, and the client-side query timeout that bounds a frozen server), and PostgreSQL's
 * SQLSTATE classes 08 (connection exception) and 57P (operator intervention: shutdown, restart,
 * starting up), and 57014 (a statement cancelled by statement_timeout: the database is too busy).
 */
const PRISMA_CONNECTION_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2028']);
const MESSAGE = new RegExp(
  [
    'ECONNREFUSED',
    'ECONNRESET',
    'ETIMEDOUT',
    'EPIPE',
    "Can't reach database server",
    'DatabaseNotReachable',
    'Connection terminated',
    // @prisma/adapter-pg's name for a connection cut under a query (a pooler or proxy restarting, README "Deployment").
    'ConnectionClosed',
    'connection timeout',
    'timeout exceeded when trying to connect',
    'Unable to start a transaction',
    'Code: `(08[0-9A-Z]{3}|57P0[1-3]|57014)`',
    'canceling statement due to statement timeout',
    'Query read timeout',
    'terminating connection',
    'the database system is (starting up|shutting down|in recovery mode)',
  ].join('|'),
  'i',
);

export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (PRISMA_CONNECTION_CODES.has(code) || /^(08|57P0|57014$)/.test(code))) return true;
    if (MESSAGE.test(String((e as { message?: unknown }).message ?? ''))) return true;
    // The driver adapter's error carries its kind in `cause` (DriverAdapterError).
    const kind = (e as { kind?: unknown }).kind;
    if (kind === 'ConnectionClosed' || kind === 'DatabaseNotReachable' || kind === 'SocketTimeout') return true;
  }
  return false;
}
