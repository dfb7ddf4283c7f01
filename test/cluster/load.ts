import { call, createOrder } from './client.ts';

/** One request of the load: what, when, and its HTTP status (0: no answer). */
export interface Sample {
  kind: 'quote+order' | 'order' | 'own list' | 'list' | 'stats';
  start: number;
  end: number;
  status: number;
}

export interface PhaseFigures {
  requests: number;
  failed: number;
  /** Failed by kind. */
  failedByKind: Record<string, number>;
  /** From the fault to the end of the last failed request (0: nothing failed). */
  recoveryMs: number;
  /** Orders acknowledged (201) during the phase. */
  acknowledged: number;
  /** Reads straight after a create that did not find the order. */
  readAfterCreateMisses: number;
}

/**
 * A mixed load through HAProxy: writers create orders (quote, then order), read each straight back
 * by id and in their own list; readers list orders and read statistics. Each writer and reader is a
 * client of its own (X-Forwarded-For), so the gateway's read-your-writes window tells them apart.
 */
export class MixedLoad {
  readonly samples: Sample[] = [];
  /** Every order the API acknowledged with 201, by id, with the time of the acknowledgement. */
  readonly acknowledged = new Map<string, number>();
  readAfterCreateMisses: Array<{ at: number; kind: string; status: number }> = [];
  private running = false;
  private loops: Promise<void>[] = [];

  constructor(
    private readonly base: string,
    private readonly options: { writers: number; readers: number },
  ) {}

  start(): void {
    this.running = true;
    for (let i = 0; i < this.options.writers; i++) this.loops.push(this.writer(i));
    for (let i = 0; i < this.options.readers; i++) this.loops.push(this.reader(i));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
    this.loops = [];
  }

  private async timed(kind: Sample['kind'], run: () => Promise<number>): Promise<number> {
    const start = Date.now();
    const status = await run();
    this.samples.push({ kind, start, end: Date.now(), status });
    return status;
  }

  private async writer(i: number): Promise<void> {
    const ip = `10.1.0.${i + 1}`;
    let n = 0;
    while (this.running) {
      // A user of its own per order: its list must hold exactly that order, read straight after the
      // create (a replica that had not replayed it would answer an empty list).
      const user = `load-${process.pid}-${i}-${n++}`;
      let orderId: string | undefined;
      await this.timed('quote+order', async () => {
        const created = await createOrder(this.base, ip, user);
        orderId = created.orderId;
        return created.statuses.find((s) => s !== 201) ?? 201;
      });
      if (!orderId) {
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      this.acknowledged.set(orderId, Date.now());
      const byId = await this.timed('order', async () => (await call(this.base, 'GET', `/orders/${orderId}`, ip)).status);
      if (byId === 404) this.readAfterCreateMisses.push({ at: Date.now(), kind: 'order', status: byId });
      await this.timed('own list', async () => {
        const list = await call(this.base, 'GET', `/orders/user/${user}?limit=5`, ip);
        const ids = ((list.body?.result?.data as Array<{ order_id: string }> | undefined) ?? []).map((o) => o.order_id);
        if (list.status === 200 && !ids.includes(orderId!))
          this.readAfterCreateMisses.push({ at: Date.now(), kind: 'own list', status: 200 });
        return list.status;
      });
    }
  }

  private async reader(i: number): Promise<void> {
    const ip = `10.2.0.${i + 1}`;
    let n = 0;
    while (this.running) {
      n++;
      if (n % 5 === 0) await this.timed('stats', async () => (await call(this.base, 'GET', '/stats', ip)).status);
      else await this.timed('list', async () => (await call(this.base, 'GET', `/orders?limit=20&page=${1 + (n % 3)}`, ip)).status);
    }
  }

  /** Figures for the requests that ended after `from` and started before `to`. */
  figures(from: number, to: number): PhaseFigures {
    const inPhase = this.samples.filter((s) => s.end >= from && s.start <= to);
    const failed = inPhase.filter((s) => s.status !== 200 && s.status !== 201);
    const failedByKind: Record<string, number> = {};
    for (const s of failed) failedByKind[`${s.kind} ${s.status}`] = (failedByKind[`${s.kind} ${s.status}`] ?? 0) + 1;
    const lastFailure = Math.max(from, ...failed.map((s) => s.end));
    return {
      requests: inPhase.length,
      failed: failed.length,
      failedByKind,
      recoveryMs: failed.length === 0 ? 0 : lastFailure - from,
      acknowledged: [...this.acknowledged.values()].filter((at) => at >= from && at <= to).length,
      readAfterCreateMisses: this.readAfterCreateMisses.filter((m) => m.at >= from && m.at <= to).length,
    };
  }

  /** Successful requests per second of one kind between two times. */
  rate(kind: Sample['kind'], from: number, to: number): number {
    const ok = this.samples.filter((s) => s.kind === kind && s.start >= from && s.end <= to && (s.status === 200 || s.status === 201));
    return ok.length / ((to - from) / 1000);
  }
}
