import { parseArgs } from 'node:util';
import { type Config, ConfigError, loadConfig } from '../../../src/config.ts';
import { openPglite, openPostgres } from '../../../src/db/database.ts';
import { SEED_DEFAULTS, type SeedOptions, seed } from './index.ts';

/** `npm run seed`: the command line around seed() (index.ts). */

const USAGE = `usage: npm run seed -- [--orders N] [--users N] [--days N] [--seed S] [--mode bulk|domain] [--even-users]
  --orders N   orders to create (default ${SEED_DEFAULTS.orders})
  --users N    distinct users placing them (default ${SEED_DEFAULTS.users})
  --days N     spread created_at over the past N days (default ${SEED_DEFAULTS.days})
  --seed S     seed of the pseudo-random plan (default ${SEED_DEFAULTS.seed})
  --even-users every user places the same number of orders (default: a few users trade a lot)
  --mode M     bulk (default): the domain's rows in batched array inserts, fast enough for millions;
               domain: every quote, order and escrow event through the domain calls, one at a time
The database is DATABASE_URL (PostgreSQL, migrated first) or else the embedded PGlite in DATA_DIR (default ./data).`;

function parseCli(argv: string[]): Pick<SeedOptions, 'orders' | 'users' | 'days' | 'seed' | 'mode' | 'evenUsers'> {
  const { values } = parseArgs({
    args: argv,
    options: {
      orders: { type: 'string' },
      users: { type: 'string' },
      days: { type: 'string' },
      seed: { type: 'string' },
      mode: { type: 'string' },
      'even-users': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const integer = (name: string, text: string | undefined, fallback: number) => {
    if (text === undefined) return fallback;
    if (!/^\d+$/.test(text) || Number(text) < 1 || !Number.isSafeInteger(Number(text))) {
      throw new UsageError(`--${name} must be a positive integer, got ${JSON.stringify(text)}`);
    }
    return Number(text);
  };
  let days: number = SEED_DEFAULTS.days;
  if (values.days !== undefined) {
    days = Number(values.days);
    if (!/^\d+(\.\d+)?$/.test(values.days) || !(days > 0)) {
      throw new UsageError(`--days must be a positive number, got ${JSON.stringify(values.days)}`);
    }
  }
  return {
    orders: integer('orders', values.orders, SEED_DEFAULTS.orders),
    users: integer('users', values.users, SEED_DEFAULTS.users),
    days,
    seed: values.seed ?? SEED_DEFAULTS.seed,
    mode: mode(values.mode),
    evenUsers: values['even-users'] ?? false,
  };
}

function mode(value: string | undefined): SeedOptions['mode'] {
  if (value === undefined || value === 'bulk' || value === 'domain') return value;
  throw new UsageError(`--mode must be bulk or domain, got ${JSON.stringify(value)}`);
}

class UsageError extends Error {}

async function main(): Promise<void> {
  let cli: ReturnType<typeof parseCli>;
  let config: Config;
  try {
    cli = parseCli(process.argv.slice(2));
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`${(error as Error).message}\n${error instanceof ConfigError ? '' : `${USAGE}\n`}`);
      process.exit(2);
    }
    throw error;
  }
  const where = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite in ${config.dataDir}`;
  console.log(`opening ${where}`);
  const db = config.databaseUrl
    ? await openPostgres({
        url: config.databaseUrl,
        migrate: true,
        timeouts: bulkTimeouts(config),
        onPoolError: (err) => process.stderr.write(`database pool error: ${err.message}\n`),
      })
    : await openPglite(config.dataDir);
  try {
    const result = await seed({ db, config, ...cli, log: (line) => console.log(line) });
    if (result.mismatches > 0) process.exitCode = 1;
    console.log(
      `a running server shows the new figures on /stats once its cache expires (STATS_CACHE_SECONDS=${config.statsCacheSeconds})`,
    );
  } finally {
    await db.close();
  }
}

/**
 * A bulk insert is no request: unless DATABASE_STATEMENT_TIMEOUT_MS / DATABASE_QUERY_TIMEOUT_MS are set,
 * a seed's statement may run ten minutes (a request's 5 s fails a large batch on a busy machine).
 */
function bulkTimeouts(config: Config): Config['database'] {
  if (process.env.DATABASE_STATEMENT_TIMEOUT_MS || process.env.DATABASE_QUERY_TIMEOUT_MS) return config.database;
  return { ...config.database, statementTimeoutMs: 600_000, queryTimeoutMs: 660_000 };
}

main().catch((error: unknown) => {
  process.stderr.write(`seed failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
