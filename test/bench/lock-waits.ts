import pg from 'pg';

/**
 * How often the backends of one database wait on a lock: pg_stat_activity sampled every `everyMs` while a
 * load runs. Of the active backends seen (the sampler's own connection left out), the share whose
 * wait_event_type is 'Lock' (a row or transaction lock: one create waiting on another).
 */
export const SAMPLER_APPLICATION = 'bench-sampler';

export interface LockWaits {
  samples: number;
  active: number;
  waitingOnLock: number;
  share: number;
}

export async function sampleLockWaits(databaseUrl: string, dbName: string, everyMs = 20): Promise<{ stop(): Promise<LockWaits> }> {
  const db = new pg.Client({ connectionString: databaseUrl, application_name: SAMPLER_APPLICATION });
  await db.connect();
  const counts = { samples: 0, active: 0, waitingOnLock: 0 };
  let running = true;
  const loop = (async () => {
    while (running) {
      const { rows } = await db.query(
        `SELECT count(*)::int AS active, count(*) FILTER (WHERE wait_event_type = 'Lock')::int AS waiting
           FROM pg_stat_activity
          WHERE datname = $1 AND state = 'active' AND backend_type = 'client backend' AND application_name <> $2`,
        [dbName, SAMPLER_APPLICATION],
      );
      counts.samples++;
      counts.active += rows[0].active as number;
      counts.waitingOnLock += rows[0].waiting as number;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      await db.end();
      return { ...counts, share: counts.active === 0 ? 0 : counts.waitingOnLock / counts.active };
    },
  };
}
