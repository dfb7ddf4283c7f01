import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * One process at a time on an embedded database's data directory. PGlite is a single-user
 * PostgreSQL with no lock of its own: a second process writing the same files (a seed while the
 * server runs) corrupts them silently. So whoever opens the directory holds `orderbook.lock`, which
 * names its pid; a lock whose process is gone (killed, crashed) is stale and taken over.
 */
export const LOCK_FILE = 'orderbook.lock';

export class DataDirInUseError extends Error {
  override readonly name = 'DataDirInUseError';
}

interface LockOwner {
  pid: number;
  command: string;
  since: string;
}

export interface DataDirLock {
  /** Removes the lock file if it is still ours. */
  release(): void;
}

export function lockDataDir(dir: string): DataDirLock {
  const path = join(dir, LOCK_FILE);
  const me: LockOwner = { pid: process.pid, command: process.argv.slice(1).join(' '), since: new Date().toISOString() };
  // Written aside, then linked into place: link() fails if the lock exists, and a lock never
  // appears half-written to a process reading it.
  const pending = `${path}.${process.pid}`;
  writeFileSync(pending, `${JSON.stringify(me)}\n`);
  try {
    // Twice at most: once as it is, once more after removing a stale lock.
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        linkSync(pending, path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const owner = readOwner(path);
        if (owner && isAlive(owner.pid)) {
          throw new DataDirInUseError(
            `the data directory ${dir} is in use by process ${owner.pid} (${owner.command || 'unknown command'}, since ${owner.since}); ` +
              'only one process may open an embedded database: stop it first, or give this one another DATA_DIR ' +
              `(or DATABASE_URL). If no such process runs, delete ${path}.`,
          );
        }
        unlinkIfPresent(path);
        continue;
      }
      return held(path, me.pid);
    }
  } finally {
    unlinkIfPresent(pending);
  }
  throw new DataDirInUseError(`could not take the lock ${path}: another process keeps taking it`);
}

function held(path: string, pid: number): DataDirLock {
  const release = () => {
    if (readOwner(path)?.pid === pid) unlinkIfPresent(path);
    process.off('exit', release);
  };
  // A normal exit (also process.exit) removes it; after SIGKILL the dead pid makes it stale.
  process.on('exit', release);
  return { release };
}

function readOwner(path: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockOwner>;
    return typeof owner.pid === 'number' ? { pid: owner.pid, command: owner.command ?? '', since: owner.since ?? '' } : undefined;
  } catch {
    return undefined; // unreadable or half-written: treated as stale
  }
}

/** Signal 0 checks that a process exists without touching it; EPERM means it exists but is not ours. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function unlinkIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
