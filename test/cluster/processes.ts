import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';

/**
 * The harness's child processes. Each runs in a process group of its own (detached), so stopping it
 * kills everything it forked; PostgreSQL is the exception (Patroni starts the postmaster in a session
 * of its own), so its postmasters are killed by the pid in their data directory. A synchronous exit
 * handler kills whatever is left, so nothing outlives the script, whichever way it ends.
 */
export interface Service {
  name: string;
  child: ChildProcess;
  /** Sends a signal to the whole process group and waits for the leader to exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  readonly running: boolean;
}

const groups = new Set<number>();
const postmasterFiles = new Set<string>();
let handlersInstalled = false;

function installExitHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', killEverything);
}

/** Kills every process group and postmaster still known: the last resort on exit. */
export function killEverything(): void {
  for (const pid of groups) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  groups.clear();
  for (const file of postmasterFiles) killPostmaster(file);
}

/** Watch a data directory's postmaster.pid so the exit handler can kill that postmaster and its backends. */
export function trackPostmaster(dataDir: string): void {
  installExitHandlers();
  postmasterFiles.add(`${dataDir}/postmaster.pid`);
}

/** Kills a postmaster (SIGKILL) and every backend it forked; true if one was running. */
export function killPostmaster(pidFile: string): boolean {
  if (!existsSync(pidFile)) return false;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!pid || !alive(pid)) return false;
  let children: number[] = [];
  try {
    children = execFileSync('pgrep', ['-P', String(pid)], { stdio: 'pipe' })
      .toString()
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    // no children
  }
  for (const p of [pid, ...children]) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  return true;
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface SpawnOptions {
  /** Log file for stdout and stderr. */
  log: string;
  env?: Record<string, string>;
  cwd?: string;
  /** Run as this user (PostgreSQL and PgBouncer refuse root). */
  user?: { uid: number; gid: number };
}

export function startService(name: string, command: string, args: string[], options: SpawnOptions): Service {
  installExitHandlers();
  const fd = openSync(options.log, 'a');
  const child = spawn(command, args, {
    detached: true,
    stdio: ['ignore', fd, fd],
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    uid: options.user?.uid,
    gid: options.user?.gid,
  });
  closeSync(fd);
  const pid = child.pid!;
  groups.add(pid);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('exit', () => {
    // The group may still hold children (a shell's); they are killed with it on stop.
    if (!alive(pid)) groups.delete(pid);
  });
  return {
    name,
    child,
    get running() {
      return child.exitCode === null && child.signalCode === null;
    },
    async kill(signal = 'SIGKILL') {
      try {
        process.kill(-pid, signal);
      } catch {
        // already gone
      }
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      if (signal !== 'SIGKILL' && child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // already gone
        }
        await exited;
      }
      groups.delete(pid);
    },
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it resolves truthy, or throws after `timeoutMs` naming what was awaited. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 60_000,
  everyMs = 200,
): Promise<T> {
  const started = Date.now();
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() - started > timeoutMs) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`);
    }
    await sleep(everyMs);
  }
}
