import type { ReadTarget } from './routing.ts';

/**
 * Which replicas are usable: up at their last check and at most REPLICA_MAX_LAG_MS behind the primary
 * (the rules: src/db/replicas/routing.ts).
 */

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
