import { z } from 'zod';

/** Thrown by loadConfig with every bad variable listed, one per line. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

const optionalString = z
  .string()
  .trim()
  .transform((s) => (s === '' ? undefined : s))
  .optional();

const seconds = (fallback: number) =>
  z.coerce.number().int('must be a whole number of seconds').positive('must be positive').default(fallback);

const millis = (fallback: number, min: number) =>
  z.coerce.number({ error: 'must be an integer' }).int('must be an integer').min(min, `must be at least ${min}`).default(fallback);

/** Database time limits; also the defaults of a database opened without a configuration (scripts, tests). */
export const DATABASE_TIMEOUT_DEFAULTS = { connectTimeoutMs: 3_000, statementTimeoutMs: 5_000, queryTimeoutMs: 6_000 } as const;

const ORIGIN = /^https?:\/\/[^/\s,]+$/;

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int('must be an integer').min(0).max(65535, 'must be a TCP port (0-65535)').default(4000),
  HOST: z.string().min(1).default('127.0.0.1'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATABASE_URL: optionalString.refine(
    (url) => url === undefined || /^postgres(ql)?:\/\//.test(url),
    'must be a postgres:// or postgresql:// URL (unset to use the embedded database)',
  ),
  DATABASE_REPLICA_URL: optionalString.refine(
    (list) => list === undefined || list.split(',').every((url) => /^postgres(ql)?:\/\//.test(url.trim())),
    'must be one or more comma-separated postgres:// or postgresql:// URLs (streaming replicas of DATABASE_URL)',
  ),
  // Read routing (README, Deployment): a replica further behind than this is skipped; how often that is
  // checked; how long a client that wrote reads from the primary.
  REPLICA_MAX_LAG_MS: millis(1_000, 0),
  REPLICA_CHECK_MS: millis(500, 50),
  READ_YOUR_WRITES_MS: millis(5_000, 0),
  DATA_DIR: z.string().min(1).default('./data'),
  REDIS_URL: optionalString.refine((url) => url === undefined || /^rediss?:\/\//.test(url), 'must be a redis:// or rediss:// URL'),
  REDIS_KEY_PREFIX: z.string().default(''),
  API_KEYS: optionalString,
  WATCHER_KEY: optionalString,
  ASSETS_FILE: optionalString,
  // At most a day: a quote's id carries its lifetime (src/domain/signed-quotes.ts), and its prices go stale.
  QUOTE_TTL_SECONDS: seconds(300).pipe(z.number().max(86_400, 'must be at most 86400 (a day)')),
  // 32 bytes or more as hex; unset: the key its migration put in the database (README, Choices: Quotes).
  QUOTE_SIGNING_KEY: optionalString.refine(
    (key) => key === undefined || /^([0-9a-fA-F]{2}){32,}$/.test(key),
    'must be at least 64 hex characters (32 bytes)',
  ),
  ORDER_DEADLINE_SECONDS: seconds(3600),
  STATS_CACHE_SECONDS: seconds(120),
  SHUTDOWN_GRACE_SECONDS: seconds(10),
  RATE_LIMIT_PER_KEY: z.coerce.number().int('must be an integer').positive('must be positive').optional(),
  RATE_LIMIT_PER_IP: z.coerce.number().int('must be an integer').positive('must be positive').optional(),
  TRUST_PROXY: z.enum(['true', 'false'], { message: 'must be true or false' }).default('false'),
  // Off behind a proxy that compresses itself (src/http/response-compression.ts).
  COMPRESS_RESPONSES: z.enum(['true', 'false'], { message: 'must be true or false' }).default('true'),
  RELAYER_POLL_MS: z.coerce.number().int('must be an integer').min(10, 'must be at least 10').default(250),
  SIMULATED_CHAIN_CONFIRM_MS: z.coerce.number().int('must be an integer').min(0).default(1500),
  // The message never repeats the value: it is a key.
  RELAYER_PRIVATE_KEY: optionalString.refine(
    (key) => key === undefined || /^(0x)?[0-9a-fA-F]{64}$/.test(key),
    'must be a 32-byte private key in hex (64 hex digits, optional 0x)',
  ),
  WATCHER_POLL_MS: z.coerce.number({ error: 'must be an integer' }).int('must be an integer').min(10, 'must be at least 10').default(2000),
  WATCHER_LEASE_MS: z.coerce
    .number({ error: 'must be an integer' })
    .int('must be an integer')
    .min(100, 'must be at least 100')
    .default(30_000),

  // Survival (README, Hardening): who may call from a browser, how long a socket may idle or stall,
  // how long a database call may take before the request is answered 503.
  CORS_ORIGINS: optionalString.refine(
    (list) => list === undefined || list.split(',').every((o) => ORIGIN.test(o.trim())),
    'must be a comma-separated list of origins such as https://app.example.com (scheme, host, optional port; no path)',
  ),
  HTTP_HEADERS_TIMEOUT_MS: millis(10_000, 1_000),
  HTTP_REQUEST_TIMEOUT_MS: millis(30_000, 1_000),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: millis(5_000, 100),
  HTTP_MAX_REQUESTS_PER_SOCKET: z.coerce
    .number({ error: 'must be an integer' })
    .int('must be an integer')
    .min(1, 'must be at least 1')
    .default(1_000),
  DATABASE_CONNECT_TIMEOUT_MS: millis(DATABASE_TIMEOUT_DEFAULTS.connectTimeoutMs, 100),
  DATABASE_STATEMENT_TIMEOUT_MS: millis(DATABASE_TIMEOUT_DEFAULTS.statementTimeoutMs, 100),
  DATABASE_QUERY_TIMEOUT_MS: millis(DATABASE_TIMEOUT_DEFAULTS.queryTimeoutMs, 100),
  DATABASE_PREPARED_STATEMENTS: z.enum(['on', 'off'], { message: 'must be on or off' }).default('on'),
  // Transport limits (README, Hardening): active subscriptions per WebSocket and per instance.
  SUBSCRIPTIONS_PER_CONNECTION: z.coerce
    .number({ error: 'must be an integer' })
    .int('must be an integer')
    .positive('must be positive')
    .default(100),
  SUBSCRIPTIONS_PER_INSTANCE: z.coerce
    .number({ error: 'must be an integer' })
    .int('must be an integer')
    .positive('must be positive')
    .default(10_000),
  // Open WebSockets per client IP (README, Hardening).
  WS_MAX_CONNECTIONS_PER_IP: z.coerce
    .number({ error: 'must be an integer' })
    .int('must be an integer')
    .positive('must be positive')
    .default(50),
  // Webhooks (README, For integrators).
  WEBHOOK_ALLOW_PRIVATE_TARGETS: z.enum(['true', 'false'], { message: 'must be true or false' }).default('false'),
  WEBHOOK_TIMEOUT_MS: millis(10_000, 100),
  WEBHOOK_POLL_MS: millis(500, 10),
  WEBHOOK_RETRY_BASE_MS: millis(5_000, 10),
  WEBHOOK_RETRY_MAX_MS: millis(3_600_000, 10),
  WEBHOOK_RETRY_FOR_SECONDS: seconds(3 * 86_400),
  WEBHOOK_DISABLE_AFTER_SECONDS: seconds(5 * 86_400),
  WEBHOOK_SWEEP_MS: millis(5_000, 10),
  WORKERS: z.coerce
    .number({ error: 'must be an integer' })
    .int('must be an integer')
    .min(1, 'must be at least 1')
    .max(64, 'must be at most 64')
    .default(1),
  METRICS: z.enum(['on', 'off'], { message: 'must be on or off' }).default('on'),
  METRICS_PORT: optionalString
    .refine(
      (port) => port === undefined || (/^\d+$/.test(port) && Number(port) >= 1 && Number(port) <= 65535),
      'must be a TCP port (1-65535)',
    )
    .transform((port) => (port === undefined ? undefined : Number(port))),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalString.refine(
    (url) => url === undefined || /^https?:\/\//.test(url),
    'must be an http:// or https:// URL (the OTLP/HTTP collector; unset for no traces)',
  ),
});

/** Per-chain overrides of the registry's EVM settings: EVM_<CHAIN>_<SETTING>, <CHAIN> the chain id upper-cased, "-" as "_". */
export interface EvmOverride {
  rpcUrl?: string;
  escrowAddress?: string;
  confirmations?: number;
  startBlock?: number;
}

const EVM_OVERRIDE = /^EVM_([A-Z0-9_]+?)_(RPC_URL|ESCROW_ADDRESS|CONFIRMATIONS|START_BLOCK)$/;
const blockCount = (min: number) =>
  z.coerce.number({ error: 'must be an integer' }).int('must be an integer').min(min, `must be at least ${min}`);
const evmOverrideSchemas = {
  RPC_URL: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }),
  ESCROW_ADDRESS: z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be an EVM address (0x and 40 hex digits)'),
  CONFIRMATIONS: blockCount(1),
  START_BLOCK: blockCount(0),
} as const;
const evmOverrideField = {
  RPC_URL: 'rpcUrl',
  ESCROW_ADDRESS: 'escrowAddress',
  CONFIRMATIONS: 'confirmations',
  START_BLOCK: 'startBlock',
} as const;

/** The EVM_* variables, each checked for its format; which chains they name is checked against the registry later. */
function parseEvmOverrides(env: Record<string, string | undefined>, problems: string[]): Record<string, EvmOverride> {
  const overrides: Record<string, EvmOverride> = {};
  for (const [name, raw] of Object.entries(env)) {
    const match = EVM_OVERRIDE.exec(name);
    const value = raw?.trim();
    if (!match || !value) continue;
    const [, chain, setting] = match as unknown as [string, string, keyof typeof evmOverrideSchemas];
    const parsed = evmOverrideSchemas[setting].safeParse(value);
    if (!parsed.success) {
      problems.push(`  ${name}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
      continue;
    }
    const override = (overrides[chain.toLowerCase()] ??= {});
    (override as Record<string, unknown>)[evmOverrideField[setting]] = parsed.data;
  }
  return overrides;
}

export interface Config {
  env: 'development' | 'production' | 'test';
  port: number;
  host: string;
  logLevel: string;
  /** PostgreSQL URL; undefined selects embedded PGlite in dataDir. */
  databaseUrl: string | undefined;
  /** Streaming replicas for lag-tolerant reads (src/db/replicas/); empty: every read on the primary. */
  replicas: { urls: string[]; maxLagMs: number; checkMs: number; readYourWritesMs: number };
  dataDir: string;
  redisUrl: string | undefined;
  /** Prepended to every Redis key, so several deployments (or test runs) can share one Redis. */
  redisKeyPrefix: string;
  /** When non-empty, writes need `Authorization: Bearer <key>`. */
  apiKeys: string[];
  watcherKey: string | undefined;
  assetsFile: string | undefined;
  quoteTtlSeconds: number;
  /** Signs and checks quote ids instead of the database's key; the same on every instance. */
  quoteSigningKey: Buffer | undefined;
  orderDeadlineSeconds: number;
  statsCacheSeconds: number;
  shutdownGraceSeconds: number;
  /** Requests per minute per API key / per client IP; undefined = no limit (the default). */
  rateLimitPerKey: number | undefined;
  rateLimitPerIp: number | undefined;
  /** Believe X-Forwarded-For for the client IP. */
  trustProxy: boolean;
  /** Compress API answers over 1 KB for clients that ask (gzip, br). */
  compressResponses: boolean;
  /** How often the relayer worker looks for claims to submit or confirm. */
  relayerPollMs: number;
  /** The simulated chain mines a claim this long after it is sent. */
  simulatedChainConfirmMs: number;
  /** Signs claims on real EVM chains. Never logged. */
  relayerPrivateKey: `0x${string}` | undefined;
  /** How often an EVM watcher polls its chain. */
  watcherPollMs: number;
  /** How long a watcher's lease on its chain lasts without renewal; another instance takes over after it. */
  watcherLeaseMs: number;
  /** EVM_<CHAIN>_* overrides, keyed by the lower-cased <CHAIN> part (resolved in src/chains/evm/chain-config.ts). */
  evmOverrides: Record<string, EvmOverride>;
  /** Browser origins allowed to call; undefined = any origin, never with credentials (README, Hardening). */
  corsOrigins: string[] | undefined;
  /** Socket limits of the HTTP server (src/http/node-server.ts). */
  http: { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number; maxRequestsPerSocket: number };
  /** Database time limits: connecting, a statement (server side), a query round trip (client side). */
  database: { connectTimeoutMs: number; statementTimeoutMs: number; queryTimeoutMs: number };
  /** Prepare statements per connection (src/db/prepared-statements.ts); off behind a transaction-mode pooler. */
  preparedStatements: boolean;

  /** Active subscriptions one WebSocket may hold, and the whole instance (WebSocket and SSE together). */
  subscriptionsPerConnection: number;
  subscriptionsPerInstance: number;
  /** Open WebSockets one client IP may hold (the IP as the rate limiter sees it). */
  wsMaxConnectionsPerIp: number;
  /** Webhook delivery (src/webhooks/): see the README's Configuration table. */
  webhooks: {
    allowPrivateTargets: boolean;
    timeoutMs: number;
    pollMs: number;
    retryBaseMs: number;
    retryMaxMs: number;
    retryForSeconds: number;
    disableAfterSeconds: number;
    sweepMs: number;
  };
  /** Worker processes behind the port (src/cluster.ts); more than one needs PostgreSQL. */
  workers: number;
  /** Prometheus metrics: off, or served at /metrics on `port` (the API's own port when undefined). */
  metrics: { enabled: boolean; port: number | undefined };
  /** Traces are exported over OTLP/HTTP to this collector (src/tracing.ts); undefined: no tracing at all. */
  otlpEndpoint: string | undefined;
}

/**
 * Reads the configuration from an environment. Pure: no process.exit, no I/O, so tests call it
 * with any object. Every bad variable is reported at once.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(env);
  const problems = parsed.success ? [] : parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
  const evmOverrides = parseEvmOverrides(env, problems);
  if (parsed.success && parsed.data.DATABASE_QUERY_TIMEOUT_MS <= parsed.data.DATABASE_STATEMENT_TIMEOUT_MS) {
    problems.push('  DATABASE_QUERY_TIMEOUT_MS: must exceed DATABASE_STATEMENT_TIMEOUT_MS (the server cancels a slow statement first)');
  }
  if (parsed.success && parsed.data.DATABASE_REPLICA_URL && !parsed.data.DATABASE_URL) {
    problems.push('  DATABASE_REPLICA_URL: needs DATABASE_URL (replicas serve reads of a PostgreSQL primary)');
  }
  if (parsed.success && parsed.data.READ_YOUR_WRITES_MS < parsed.data.REPLICA_MAX_LAG_MS + parsed.data.REPLICA_CHECK_MS) {
    // A replica in use is at most REPLICA_MAX_LAG_MS + REPLICA_CHECK_MS behind (src/db/replicas/): a
    // client's own write is on every replica in use once this window has passed.
    problems.push('  READ_YOUR_WRITES_MS: must be at least REPLICA_MAX_LAG_MS + REPLICA_CHECK_MS');
  }
  if (parsed.success && parsed.data.WATCHER_LEASE_MS <= parsed.data.WATCHER_POLL_MS) {
    problems.push('  WATCHER_LEASE_MS: must exceed WATCHER_POLL_MS (a watcher renews its lease once per poll)');
  }
  if (parsed.success && parsed.data.WORKERS > 1 && !parsed.data.DATABASE_URL) {
    // src/db/data-dir-lock.ts: a PGlite data directory is held by one process at a time.
    problems.push('  WORKERS: more than one worker needs DATABASE_URL (PostgreSQL); the embedded PGlite data directory is single-process');
  }
  if (parsed.success && parsed.data.WORKERS > 1 && parsed.data.DATABASE_REPLICA_URL && !parsed.data.REDIS_URL) {
    // Who wrote lately is each process's own memory without Redis: a client's next request, on another
    // worker, would read its list from a replica that may not have its write yet.
    problems.push('  WORKERS: more than one worker with DATABASE_REPLICA_URL needs REDIS_URL (read-your-writes spans the workers)');
  }
  if (parsed.success && parsed.data.WEBHOOK_RETRY_MAX_MS < parsed.data.WEBHOOK_RETRY_BASE_MS) {
    problems.push('  WEBHOOK_RETRY_MAX_MS: must be at least WEBHOOK_RETRY_BASE_MS');
  }
  if (!parsed.success || problems.length > 0) {
    throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
  }
  const e = parsed.data;
  const key = e.RELAYER_PRIVATE_KEY;
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    logLevel: e.LOG_LEVEL,
    databaseUrl: e.DATABASE_URL,
    replicas: {
      urls: (e.DATABASE_REPLICA_URL ?? '')
        .split(',')
        .map((url) => url.trim())
        .filter(Boolean),
      maxLagMs: e.REPLICA_MAX_LAG_MS,
      checkMs: e.REPLICA_CHECK_MS,
      readYourWritesMs: e.READ_YOUR_WRITES_MS,
    },
    dataDir: e.DATA_DIR,
    redisUrl: e.REDIS_URL,
    redisKeyPrefix: e.REDIS_KEY_PREFIX,
    apiKeys: (e.API_KEYS ?? '')
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean),
    watcherKey: e.WATCHER_KEY,
    assetsFile: e.ASSETS_FILE,
    quoteTtlSeconds: e.QUOTE_TTL_SECONDS,
    quoteSigningKey: e.QUOTE_SIGNING_KEY === undefined ? undefined : Buffer.from(e.QUOTE_SIGNING_KEY, 'hex'),
    orderDeadlineSeconds: e.ORDER_DEADLINE_SECONDS,
    statsCacheSeconds: e.STATS_CACHE_SECONDS,
    shutdownGraceSeconds: e.SHUTDOWN_GRACE_SECONDS,
    workers: e.WORKERS,
    rateLimitPerKey: e.RATE_LIMIT_PER_KEY,
    rateLimitPerIp: e.RATE_LIMIT_PER_IP,
    trustProxy: e.TRUST_PROXY === 'true',
    compressResponses: e.COMPRESS_RESPONSES === 'true',
    relayerPollMs: e.RELAYER_POLL_MS,
    simulatedChainConfirmMs: e.SIMULATED_CHAIN_CONFIRM_MS,
    relayerPrivateKey: key === undefined ? undefined : key.startsWith('0x') ? (key as `0x${string}`) : `0x${key}`,
    watcherPollMs: e.WATCHER_POLL_MS,
    watcherLeaseMs: e.WATCHER_LEASE_MS,
    evmOverrides,
    corsOrigins: e.CORS_ORIGINS?.split(',').map((o) => o.trim()),
    http: {
      headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      maxRequestsPerSocket: e.HTTP_MAX_REQUESTS_PER_SOCKET,
    },
    database: {
      connectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
      queryTimeoutMs: e.DATABASE_QUERY_TIMEOUT_MS,
    },
    preparedStatements: e.DATABASE_PREPARED_STATEMENTS === 'on',

    subscriptionsPerConnection: e.SUBSCRIPTIONS_PER_CONNECTION,
    subscriptionsPerInstance: e.SUBSCRIPTIONS_PER_INSTANCE,
    wsMaxConnectionsPerIp: e.WS_MAX_CONNECTIONS_PER_IP,
    webhooks: {
      allowPrivateTargets: e.WEBHOOK_ALLOW_PRIVATE_TARGETS === 'true',
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      pollMs: e.WEBHOOK_POLL_MS,
      retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
      retryMaxMs: e.WEBHOOK_RETRY_MAX_MS,
      retryForSeconds: e.WEBHOOK_RETRY_FOR_SECONDS,
      disableAfterSeconds: e.WEBHOOK_DISABLE_AFTER_SECONDS,
      sweepMs: e.WEBHOOK_SWEEP_MS,
    },
    metrics: { enabled: e.METRICS === 'on', port: e.METRICS_PORT },
    otlpEndpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT,
  };
}
