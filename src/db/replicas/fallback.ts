import type { SqlDriverAdapter, SqlDriverAdapterFactory, SqlQuery, SqlQueryable } from '@prisma/driver-adapter-utils';
import type { RowReader } from '../row-store.ts';
import { isDatabaseUnavailable } from '../unavailable.ts';

/**
 * A driver adapter that sends each query to the replica and, when the replica cannot answer (down,
 * restarting, its connection cut, or a query cancelled by a recovery conflict), to the primary instead.
 * Below Prisma Client and the row store alike, so both fall back the same way.
 */
export function fallbackAdapterFactory(
  replica: SqlDriverAdapterFactory,
  primary: SqlQueryable,
  onDown: () => void,
): SqlDriverAdapterFactory {
  return {
    provider: replica.provider,
    adapterName: replica.adapterName,
    async connect(): Promise<SqlDriverAdapter> {
      return fallbackAdapter(await replica.connect(), primary, onDown);
    },
  };
}

/** Runs `onReplica`; when the replica cannot answer (replicaCannotAnswer), reports it down and runs `onPrimary`. */
async function replicaOrPrimary<T>(onReplica: () => Promise<T>, onPrimary: () => Promise<T>, onDown: () => void): Promise<T> {
  try {
    return await onReplica();
  } catch (error) {
    if (!replicaCannotAnswer(error)) throw error;
    onDown();
    return onPrimary();
  }
}

/**
 * The row store's reads (row-store.ts, RowReader) on the replica, falling back to the primary's reader
 * exactly as fallbackAdapter does for Prisma Client and the row store's writes.
 */
export function fallbackReader(replica: RowReader, primary: RowReader, onDown: () => void): RowReader {
  return (sql, args, argTypes) =>
    replicaOrPrimary(
      () => replica(sql, args, argTypes),
      () => primary(sql, args, argTypes),
      onDown,
    );
}

export function fallbackAdapter(inner: SqlDriverAdapter, primary: SqlQueryable, onDown: () => void): SqlDriverAdapter {
  const run = <T>(onReplica: () => Promise<T>, onPrimary: () => Promise<T>) => replicaOrPrimary(onReplica, onPrimary, onDown);
  return {
    provider: inner.provider,
    adapterName: inner.adapterName,
    queryRaw: (query: SqlQuery) =>
      run(
        () => inner.queryRaw(query),
        () => primary.queryRaw(query),
      ),
    executeRaw: (query: SqlQuery) =>
      run(
        () => inner.executeRaw(query),
        () => primary.executeRaw(query),
      ),
    executeScript: (script) => inner.executeScript(script),
    startTransaction: (isolationLevel) => inner.startTransaction(isolationLevel),
    getConnectionInfo: inner.getConnectionInfo?.bind(inner),
    dispose: () => inner.dispose(),
  };
}

/** SQLSTATE 40001 on a standby: "canceling statement due to conflict with recovery". */
function replicaCannotAnswer(error: unknown): boolean {
  // A statement that ran out of time is slow, not unanswerable: run again on the primary it would cost the
  // client twice the wait and take a working replica out of use. A frozen replica is found by the checks.
  if (ranOutOfTime(error)) return false;
  if (isDatabaseUnavailable(error)) return true;
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown; originalCode?: unknown }).originalCode ?? (e as { code?: unknown }).code;
    if (code === '40001' && /recovery/i.test(String((e as { message?: unknown }).message ?? ''))) return true;
    if ((e as { kind?: unknown }).kind === 'DatabaseNotReachable' || (e as { kind?: unknown }).kind === 'ConnectionClosed') return true;
  }
  return false;
}

function ranOutOfTime(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { originalCode?: unknown }).originalCode ?? (e as { code?: unknown }).code;
    if (code === '57014' || /statement timeout|Query read timeout/i.test(String((e as { message?: unknown }).message ?? ''))) return true;
  }
  return false;
}
