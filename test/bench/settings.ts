import { fileURLToPath } from 'node:url';

/** What a bench run measures, from BENCH_* (test/bench/README.md). */

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/bench';
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
export const LEVELS = (process.env.BENCH_CONNECTIONS ?? '10,32').split(',').map(Number);
export const MIN_ORDERS = Number(process.env.BENCH_MIN_ORDERS ?? 1_000_000);
export const ONLY = process.env.BENCH_ONLY?.split(',').filter(Boolean);
/** Users with at least this many orders: their first pages of 20 are full, and a page of 100 is too. */
export const FULL_USER_ORDERS = 100;
export const MIN_FULL_USERS = Number(process.env.BENCH_MIN_FULL_USERS ?? 200);
export const PGBENCH_CLIENTS = 8;
export const STATS_TARGET_MS = 100;
