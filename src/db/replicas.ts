import { createHash } from 'node:crypto';
import type { SqlDriverAdapter, SqlDriverAdapterFactory, SqlQuery, SqlQueryable } from '@prisma/driver-adapter-utils';
import type { Redis } from 'ioredis';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { StatsStore } from '../domain/stats.ts';
import type { OffsetPage, OrdersStore } from './orders-store.ts';
import type { RowReader, RowStore } from './row-store.ts';
import { isDatabaseUnavailable } from './unavailable.ts';

/**
 * Reads that tolerate a little lag (order lists, statistics) go to streaming replicas
 * (DATABASE_REPLICA_URL); everything else stays on the primary (README, Deployment). The rules:
 *
 * - A replica is used only while its last check found it up and at most REPLICA_MAX_LAG_MS behind the
 *   primary. The check (every REPLICA_CHECK_MS) samples the primary's WAL position, then asks each
 *   replica what it has replayed: a replica that replayed the sample taken at time T has every commit
 *   made before T. Comparing positions, not pg_last_xact_replay_timestamp(), keeps an idle primary from
 *   looking like a lagging replica.
 * - A query that cannot reach the replica (stopped, restarted, cut) is sent to the primary at once and
 *   the replica is skipped until a check finds it again: the request does not fail.
 * - A client that wrote (same API key, else same IP) reads from the primary for READ_YOUR_WRITES_MS,
 *   on every instance when Redis is configured: its new order is in its lists. That window is at least
 *   the lag bound plus a check period, so afterwards every replica in use has the write.
 * - A read by id that the replica answers with nothing is read again on the primary: an order read
 *   straight after its creation is never a 404.
 */

/** What a read runs on: Prisma Client and the row store of one database. */
export interface ReadTarget {
  prisma: PrismaClient;
  rows: RowStore;
  orders: OrdersStore;
  stats: StatsStore;
  /** The replica's name (its host:port), undefined for the primary. */
  replica?: string;
}

/** One replica's Prisma Client and row store (falling back to the primary), and its raw pool for the checks. */
export interface ReplicaNode {
  name: string;
  target: ReadTarget;
  /** `pg_is_in_recovery()` and `pg_last_wal_replay_lsn()` of the replica. */
  replayState(): Promise<{ inRecovery: boolean; replayLsn: string | null }>;
  close(): Promise<void>;
}

export interface ReplicaState {
  name: string;
  up: boolean;
  /** How far behind the primary it was at the last check (ms); undefined before the first check. */
  lagMs: number | undefined;
  /** When that check ran (epoch ms). */
  checkedAt: number | undefined;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms);
  });
  promise.catch(() => undefined);
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A WAL position 'X/Y' as a number. */
export function lsnValue(lsn: string): bigint {
  const [high, low] = lsn.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

export interface ReplicaSetOptions {
  nodes: ReplicaNode[];
  /** The primary's `pg_current_wal_lsn()`. */
  primaryLsn(): Promise<string>;
  maxLagMs: number;
  checkMs: number;
  now?: () => number;
  /** Called when a replica becomes usable or stops being so (down, or past the lag bound). */
  onChange?: (state: ReplicaState, usable: boolean) => void;
}

export class ReplicaSet {
  private readonly states: Map<string, ReplicaState>;
  /** Primary WAL positions by time, newest last: what a replica's replay position is compared against. */
  private samples: Array<{ at: number; lsn: bigint }> = [];
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;
  private next = 0;
  private readonly now: () => number;

  constructor(private readonly options: ReplicaSetOptions) {
    this.now = options.now ?? Date.now;
    this.states = new Map(options.nodes.map((n) => [n.name, { name: n.name, up: false, lagMs: undefined, checkedAt: undefined }]));
  }

  get nodes(): readonly ReplicaNode[] {
    return this.options.nodes;
  }

  start(): void {
    if (this.timer) return;
    void this.check();
    this.timer = setInterval(() => void this.check(), this.options.checkMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.checking;
  }

  status(): ReplicaState[] {
    return [...this.states.values()].map((s) => ({ ...s }));
  }

  /** One round of checks (also run by the timer); concurrent calls share the round in flight. */
  check(): Promise<void> {
    this.checking ??= this.runCheck().finally(() => {
      this.checking = undefined;
    });
    return this.checking;
  }

  private async runCheck(): Promise<void> {
    const at = this.now();
    let primary: bigint;
    try {
      // A primary that is gone can take the pool's whole timeout to say so; the replicas' state must not
      // age meanwhile, so the check gives up on it sooner.
      primary = lsnValue(await withTimeout(this.options.primaryLsn(), Math.max(this.options.checkMs, 1_000)));
    } catch {
      await this.checkWithoutPrimary(at);
      return;
    }
    this.samples.push({ at, lsn: primary });
    // Older samples only matter to measure a lag already past the bound.
    const keepFrom = at - Math.max(this.options.maxLagMs * 4, this.options.checkMs * 4, 10_000);
    while (this.samples.length > 1 && this.samples[0]!.at < keepFrom) this.samples.shift();
    await Promise.all(
      this.options.nodes.map(async (node) => {
        let up = false;
        let lagMs: number | undefined;
        try {
          // Bounded like the primary's sample: one replica that hangs must not hold back every replica's check.
          const state = await withTimeout(node.replayState(), Math.max(this.options.checkMs, 1_000));
          // A node out of recovery is no replica of this primary (promoted, or misconfigured).
          if (state.inRecovery && state.replayLsn) {
            up = true;
            lagMs = this.lagOf(lsnValue(state.replayLsn), at);
          }
        } catch {
          up = false;
        }
        this.set(node.name, { up, lagMs, checkedAt: at });
      }),
    );
  }

  /**
   * The primary cannot be asked (it is down, or failing over): a replica that still answers as a replica
   * keeps its last measured lag, so lists and statistics carry on there while writes wait for the new
   * primary. Nothing can commit on a primary that is down, so the replica falls no further behind; the
   * price is an instance cut off from a primary that others still write to, which reads from the
   * replica with its lag unmeasured until the primary answers again (README, Deployment).
   */
  private async checkWithoutPrimary(at: number): Promise<void> {
    await Promise.all(
      this.options.nodes.map(async (node) => {
        try {
          const state = await node.replayState();
          const known = this.states.get(node.name)?.lagMs !== undefined;
          this.set(node.name, { up: state.inRecovery && known, checkedAt: at });
        } catch {
          this.set(node.name, { up: false, checkedAt: at });
        }
      }),
    );
  }

  /** Time since the newest primary sample the replica has replayed (0 when it has the latest). */
  private lagOf(replayed: bigint, at: number): number {
    for (let i = this.samples.length - 1; i >= 0; i--) {
      if (this.samples[i]!.lsn <= replayed) return at - this.samples[i]!.at;
    }
    return at - this.samples[0]!.at + this.options.checkMs;
  }

  private set(name: string, change: Partial<ReplicaState>): void {
    const state = this.states.get(name);
    if (!state) return;
    const wasUsable = this.usable(state);
    Object.assign(state, change);
    const usable = this.usable(state);
    if (wasUsable !== usable) this.options.onChange?.({ ...state }, usable);
  }

  /** Up, within the lag bound, and checked recently enough for that to still hold. */
  private usable(state: ReplicaState): boolean {
    if (!state.up || state.lagMs === undefined || state.checkedAt === undefined) return false;
    const age = this.now() - state.checkedAt;
    return state.lagMs + age <= this.options.maxLagMs + this.options.checkMs;
  }

  /** A usable replica, taking turns; undefined when none is. */
  pick(): ReplicaNode | undefined {
    const nodes = this.options.nodes;
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[(this.next + i) % nodes.length]!;
      if (this.usable(this.states.get(node.name)!)) {
        this.next = (this.next + i + 1) % nodes.length;
        return node;
      }
    }
    return undefined;
  }

  /** A query could not reach the replica: skip it until a check finds it again. */
  markDown(name: string): void {
    this.set(name, { up: false });
  }
}

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

/** Who wrote recently, so their reads stay on the primary (read-your-writes). */
export interface WriterWindow {
  mark(client: string): void;
  wroteRecently(client: string): Promise<boolean>;
}

export function memoryWriterWindow(windowMs: number, now: () => number = Date.now): WriterWindow {
  const until = new Map<string, number>();
  return {
    mark(client) {
      const t = now();
      // Forget expired entries now and then, so the map holds only the window's writers.
      if (until.size > 10_000) for (const [key, end] of until) if (end <= t) until.delete(key);
      until.set(client, t + windowMs);
    },
    async wroteRecently(client) {
      const end = until.get(client);
      return end !== undefined && end > now();
    },
  };
}

/**
 * The window shared by every instance through Redis (a key per writer that expires with the window),
 * so a client that wrote through one instance reads from the primary on all of them. Redis failing,
 * nobody can tell who wrote elsewhere: reads then stay on the primary (consistency over offload).
 */
export function redisWriterWindow(
  redis: Redis,
  windowMs: number,
  onError: (error: Error) => void,
  now: () => number = Date.now,
): WriterWindow {
  const local = memoryWriterWindow(windowMs, now);
  const key = (client: string) => `rw:${createHash('sha256').update(client).digest('base64url').slice(0, 22)}`;
  return {
    mark(client) {
      local.mark(client);
      redis.set(key(client), '1', 'PX', windowMs).catch(onError);
    },
    async wroteRecently(client) {
      if (await local.wroteRecently(client)) return true;
      try {
        return (await redis.exists(key(client))) === 1;
      } catch (error) {
        onError(error as Error);
        return true;
      }
    },
  };
}

/** Per request: where its lag-tolerant reads go, decided once, on first use. */
export interface RequestReads {
  /** Lists and statistics: a usable replica unless this client wrote recently, else the primary. */
  lagTolerant(): Promise<ReadTarget>;
  /**
   * A read by id: on the replica when lists would go there; a miss is read again on the primary, and
   * the request's later reads (the order's intents) then stay on the primary too.
   */
  byId<T>(read: (target: ReadTarget) => Promise<T | null>): Promise<T | null>;
  /** This request wrote: the client's reads stay on the primary for the window. */
  wrote(): void;
  /**
   * Every later read of this request on the primary: a subscription keeps its request for hours and
   * pushes changes as they commit, which a replica may not have replayed yet.
   */
  pinPrimary(): void;
}

export interface ReadRouting {
  forRequest(client: string | undefined): RequestReads;
}

export function createReadRouting(primary: ReadTarget, replicas: ReplicaSet | undefined, writers: WriterWindow | undefined): ReadRouting {
  return {
    forRequest(client) {
      let chosen: Promise<ReadTarget> | undefined;
      const lagTolerant = () => {
        chosen ??= (async () => {
          const node = replicas?.pick();
          if (!node) return primary;
          if (client !== undefined && writers && (await writers.wroteRecently(client))) return primary;
          return node.target;
        })();
        return chosen;
      };
      return {
        lagTolerant,
        async byId(read) {
          const target = await lagTolerant();
          const found = await read(target);
          if (found !== null || target === primary) return found;
          chosen = Promise.resolve(primary);
          return read(primary);
        },
        wrote() {
          if (client !== undefined) writers?.mark(client);
        },
        pinPrimary() {
          chosen = Promise.resolve(primary);
        },
      };
    },
  };
}

/** Reads on the primary only: no replicas configured, PGlite, scripts. */
export function primaryOnly(primary: ReadTarget): ReadRouting {
  return createReadRouting(primary, undefined, undefined);
}

/**
 * The orders store a request reads through: pages and counts where its lag-tolerant reads go, one
 * order by id on the replica with the primary behind it (an order just created is never a 404).
 */
export function routedOrdersStore(reads: RequestReads, primary: OrdersStore): OrdersStore {
  return {
    client: primary.client,
    byId: (id) => reads.byId((target) => target.orders.byId(id)),
    offsetPage(set, pagination, options) {
      let page: Promise<OffsetPage> | undefined;
      const pageOn = () => (page ??= reads.lagTolerant().then((target) => target.orders.offsetPage(set, pagination, options)));
      return {
        ...pagination,
        rows: async () => (await pageOn()).rows(),
        total: async () => (await pageOn()).total(),
      };
    },
    keysetPage: async (set, range, options) => (await reads.lagTolerant()).orders.keysetPage(set, range, options),
    count: async (set) => (await reads.lagTolerant()).orders.count(set),
    userPageJson: async (...args) => (await reads.lagTolerant()).orders.userPageJson(...args),
  };
}
