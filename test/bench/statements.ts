import { createServer, connect, type AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config.ts';
import { openPostgres } from '../../src/db/database.ts';
import { createLogger } from '../../src/logger.ts';
import { createRuntime } from '../../src/runtime.ts';
import { DATABASE_URL } from './settings.ts';

// Statements on the wire: a proxy in front of PostgreSQL counts what clients execute.

/**
 * Counts Bind (extended protocol: one per statement executed) and Query (simple protocol) messages
 * from clients to PostgreSQL, passing every byte through unchanged.
 */
export async function statementCounter(target: URL) {
  let statements = 0;
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    let buffered = Buffer.alloc(0);
    let started = false;
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        if (!started) {
          // The startup message (and an SSLRequest before it) has a length but no type byte.
          if (buffered.length < 8) break;
          const length = buffered.readInt32BE(0);
          if (buffered.length < length) break;
          const code = buffered.readInt32BE(4);
          buffered = buffered.subarray(length);
          if (code !== 80877103) started = true;
          continue;
        }
        if (buffered.length < 5) break;
        const length = buffered.readInt32BE(1);
        if (buffered.length < length + 1) break;
        const type = String.fromCharCode(buffered[0]!);
        if (type === 'B' || type === 'Q') statements++;
        buffered = buffered.subarray(length + 1);
      }
    });
    upstream.on('data', (chunk) => client.write(chunk));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target.href);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as AddressInfo).port);
  return { url: url.href, count: () => statements, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** Statements the service sends for each request, the app in-process over the counting proxy (no background work started). */
export async function countStatements(
  requests: { name: string; path: string; body?: unknown }[],
): Promise<{ name: string; statements: number }[]> {
  const counter = await statementCounter(new URL(DATABASE_URL));
  const db = await openPostgres({ url: counter.url });
  const config = loadConfig({ DATABASE_URL: counter.url, NODE_ENV: 'production', LOG_LEVEL: 'silent' });
  const runtime = createRuntime({ config, db, logger: createLogger('silent') });
  const out: { name: string; statements: number }[] = [];
  try {
    const send = async (r: { path: string; body?: unknown }) => {
      const reply = await runtime.app.fetch(`http://bench${r.path}`, {
        method: r.body === undefined ? 'GET' : 'POST',
        headers: r.body === undefined ? {} : { 'content-type': 'application/json' },
        body: r.body === undefined ? undefined : JSON.stringify(r.body),
      });
      const text = await reply.text();
      if (!reply.ok || text.includes('"errors"')) throw new Error(`${r.path}: ${reply.status} ${text.slice(0, 300)}`);
    };
    for (const r of requests) {
      await send(r); // warm: first-use statements (registry, plans) are not the page's
      const before = counter.count();
      await send(r);
      out.push({ name: r.name, statements: counter.count() - before });
    }
  } finally {
    await runtime.stop();
    await db.close();
    await counter.close();
  }
  return out;
}
