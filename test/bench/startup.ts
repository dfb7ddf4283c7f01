import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/server-process.ts';

/**
 * npm run bench:startup: time from spawning the server to its first 200 on /ready, on a warm PGlite data
 * directory (one start first creates and migrates it). Prints each run and the median of STARTUP_RUNS (5).
 * STARTUP_COMMAND picks what to start (default `npm start`, what a user runs).
 */
const runs = Number(process.env.STARTUP_RUNS ?? 5);
const command = process.env.STARTUP_COMMAND ?? 'npm start';
const dataDir = mkdtempSync(join(tmpdir(), 'startup-'));

async function startOnce(): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(command, {
    shell: true,
    detached: true,
    env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${command} exited with ${child.exitCode}`);
      try {
        if ((await fetch(`http://127.0.0.1:${port}/ready`)).ok) return performance.now() - started;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    // The whole process group: `npm start` runs the server as its child.
    process.kill(-child.pid!, 'SIGTERM');
    await exited;
  }
}

try {
  const cold = await startOnce();
  console.log(`first start (creates and migrates ${dataDir}): ${(cold / 1000).toFixed(2)} s`);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const ms = await startOnce();
    times.push(ms);
    console.log(`warm start ${i + 1}: ${(ms / 1000).toFixed(2)} s`);
  }
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  console.log(
    `${command}: start to ready, median of ${runs} warm starts: ${(median / 1000).toFixed(2)} s (min ${(sorted[0]! / 1000).toFixed(2)}, max ${(sorted.at(-1)! / 1000).toFixed(2)})`,
  );
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
