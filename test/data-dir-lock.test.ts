import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirInUseError, LOCK_FILE } from '../src/db/data-dir-lock.ts';
import { openPglite, type Database } from '../src/db/database.ts';
import { TEST_DB } from './support/database.ts';

/** One process at a time on an embedded data directory (src/db/data-dir-lock.ts). PGlite only. */
describe.skipIf(TEST_DB !== 'pglite')('the embedded data directory lock', () => {
  const opened: Database[] = [];
  const dirs: string[] = [];
  const newDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'obg-lock-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(async () => {
    for (const db of opened.splice(0)) await db.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a second opener while the first holds it, naming the owner, and admits one after close', async () => {
    const dir = newDir();
    const first = await openPglite(dir);
    const second = openPglite(dir);
    await expect(second).rejects.toThrow(DataDirInUseError);
    await expect(second).rejects.toThrow(`is in use by process ${process.pid}`);
    // The refused opener did not disturb the holder.
    await first.ping();
    await first.close();
    opened.push(await openPglite(dir));
  });

  it('takes over a stale lock whose process is gone', async () => {
    const dir = newDir();
    // A pid that existed and has exited: a process killed while holding the directory.
    const gone = spawnSync(process.execPath, ['-e', '']).pid!;
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: gone, command: 'npm start', since: '2026-01-01T00:00:00Z' }));
    opened.push(await openPglite(dir));
    await opened[0]!.ping();
  });
});
