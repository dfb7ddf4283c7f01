/**
 * The plans behind the bench's hot paths: each path runs once through the real app in-process,
 * every SQL statement it sends (Prisma Client's and the row store's) is captured with its parameters,
 * and each is shown with EXPLAIN (ANALYZE, BUFFERS). Reads are analysed as they ran; writes, a WITH
 * that writes included, are only planned (EXPLAIN ANALYZE would execute them again).
 *
 *   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/bench tsx test/bench/explain.ts
 */
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { openPostgres } from '../../src/db/database.ts';
import { createLogger } from '../../src/logger.ts';
import { createRuntime } from '../../src/runtime.ts';

export interface HotPath {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  /** JSON to send; a function gets the previous path's reply (parsed), to chain quote and order. */
  body?: unknown;
}

interface Statement {
  sql: string;
  params: unknown[];
}

const READ = /^\s*(SELECT|WITH)\b/i;
const WRITE = /^\s*(INSERT|UPDATE|DELETE)\b/i;
/** A data-modifying WITH (the order's insert) reads like a SELECT but must not run twice. */
const WRITES_INSIDE = /\b(INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM)\b/i;

export async function explainHotPaths(databaseUrl: string, paths: HotPath[], print: (line: string) => void): Promise<void> {
  let captured: Statement[] = [];
  const db = await openPostgres({
    url: databaseUrl,
    onQuery: (sql, params) => captured.push({ sql, params: JSON.parse(params || '[]') as unknown[] }),
  });
  const config = loadConfig({ DATABASE_URL: databaseUrl, NODE_ENV: 'production', LOG_LEVEL: 'silent' });
  const runtime = createRuntime({ config, db, logger: createLogger('silent') });
  const plain = new pg.Client({ connectionString: databaseUrl });
  await plain.connect();
  try {
    let previous: unknown;
    for (const hot of paths) {
      captured = [];
      const body = typeof hot.body === 'function' ? (hot.body as (reply: unknown) => unknown)(previous) : hot.body;
      const reply = await runtime.app.fetch(`http://bench${hot.path}`, {
        method: hot.method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await reply.text();
      if (!reply.ok) throw new Error(`${hot.method} ${hot.path}: ${reply.status} ${text.slice(0, 300)}`);
      previous = JSON.parse(text) as unknown;
      const statements = captured.filter((s) => READ.test(s.sql) || WRITE.test(s.sql));
      print(
        `\n### ${hot.name}: ${hot.method} ${hot.path.length > 90 ? `${hot.path.slice(0, 90)}…` : hot.path} (${statements.length} statements)`,
      );
      for (const statement of statements) {
        const analyse = READ.test(statement.sql) && !WRITES_INSIDE.test(statement.sql);
        const options = analyse ? 'ANALYZE, BUFFERS, COSTS OFF' : 'COSTS OFF';
        const { rows } = await plain.query<{ 'QUERY PLAN': string }>(`EXPLAIN (${options}) ${statement.sql}`, statement.params);
        print(`-- ${statement.sql.replace(/\s+/g, ' ').slice(0, 200)}${statement.sql.length > 200 ? ' …' : ''}`);
        for (const row of rows) {
          const line = row['QUERY PLAN'];
          print(`   ${line.length > 160 ? `${line.slice(0, 160)} …` : line}`);
        }
      }
    }
  } finally {
    await plain.end();
    await runtime.stop();
    await db.close();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const url = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/bench';
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query<{ user_id: string }>(`SELECT user_id FROM stats_users_live ORDER BY md5(user_id) LIMIT 1`);
  await client.end();
  await explainHotPaths(
    url,
    [
      { name: 'user page', method: 'GET', path: `/orders/user/${encodeURIComponent(rows[0]!.user_id)}?limit=20` },
      { name: 'status page', method: 'GET', path: '/orders?status=completed&limit=20' },
      { name: 'stats, cold', method: 'GET', path: '/stats' },
    ],
    (line) => console.log(line),
  );
}
