/**
 * How much of a load waits on locks: pg_stat_activity sampled every ~20 ms while the load runs, counting the
 * active backends of the load's database and those of them whose wait_event_type is 'Lock' (a row, tuple or
 * transaction lock: one writer queued behind another). The share is waiting / active over all samples.
 * The sampler also reads each of those backends' CPU time from /proc (Linux, same machine), so a load gives
 * PostgreSQL CPU per transaction beside it.
 *
 * The create bench (creates.ts) samples its service turns with it and prints the share beside the ratio.
 */
import { existsSync, readFileSync } from 'node:fs';
import pg from 'pg';

/** The sampler's connection names itself, so other samplers (creates.ts's CPU reader) leave it out. */
export const SAMPLER_APPLICATION = 'bench-sampler';

export interface LockWaitShare {
  samples: number;
  /** Active backends summed over the samples (the sampler's own connection excluded). */
  active: number;
  /** Of those, the ones waiting on a heavyweight lock. */
  waitingOnLock: number;
  /** waitingOnLock / active, 0 when nothing was active. */
  share: number;
  /** CPU time (user + system) of the database's backends seen while sampling, in ms; NaN without /proc. */
  backendCpuMs: number;
}

export interface LockWaitSampler {
  /** Stops sampling and returns the figures. */
  stop(): Promise<LockWaitShare>;
}

const TICK_MS = 1000 / 100; // USER_HZ

/** utime + stime of a process, in ms; undefined once it is gone or unreadable. */
function cpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return undefined;
  }
}

/** Whether the server's backend pids are this machine's processes: its own backend must be a postgres process here. */
async function sameHost(client: pg.Client): Promise<boolean> {
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  try {
    return readFileSync(`/proc/${rows[0]!.pid}/stat`, 'utf8').includes('(postgres)');
  } catch {
    return false;
  }
}

/**
 * Samples the backends of `database` (the connection URL's own database unless named) until stop().
 * Backends that were already running when sampling started count only the CPU they use from then on.
 */
export async function sampleLockWaits(url: string, options: { database?: string; intervalMs?: number } = {}): Promise<LockWaitSampler> {
  const client = new pg.Client({ connectionString: url, application_name: SAMPLER_APPLICATION });
  await client.connect();
  const database = options.database ?? (await client.query<{ db: string }>('SELECT current_database() AS db')).rows[0]!.db;
  const intervalMs = options.intervalMs ?? 20;
  let samples = 0;
  let active = 0;
  let waitingOnLock = 0;
  // Per backend: CPU when first seen and when last seen.
  const cpu = new Map<number, { first: number; last: number }>();
  // Not Linux, or PostgreSQL on another host: no CPU figure.
  const readable = existsSync(`/proc/${process.pid}/stat`) && (await sameHost(client));
  let running = true;

  const sampleOnce = async () => {
    const { rows } = await client.query<{ pid: number; state: string | null; wait_event_type: string | null }>(
      `SELECT pid, state, wait_event_type FROM pg_stat_activity
       WHERE datname = $1 AND backend_type = 'client backend' AND pid <> pg_backend_pid()`,
      [database],
    );
    samples++;
    for (const row of rows) {
      if (row.state === 'active') {
        active++;
        if (row.wait_event_type === 'Lock') waitingOnLock++;
      }
      // A backend that ended since the query keeps the CPU last read for it.
      const now = cpuMs(row.pid);
      if (now === undefined) continue;
      const seen = cpu.get(row.pid);
      if (seen) seen.last = now;
      else cpu.set(row.pid, { first: now, last: now });
    }
  };

  const loop = (async () => {
    while (running) {
      const started = Date.now();
      await sampleOnce();
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, intervalMs - (Date.now() - started))));
    }
  })();

  return {
    async stop() {
      running = false;
      await loop;
      await client.end();
      const backendCpuMs = readable ? [...cpu.values()].reduce((sum, c) => sum + c.last - c.first, 0) : Number.NaN;
      return { samples, active, waitingOnLock, share: active === 0 ? 0 : waitingOnLock / active, backendCpuMs };
    },
  };
}
