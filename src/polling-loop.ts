import type { Logger } from 'pino';

export interface PollingLoopOptions {
  /** Names the loop in its log lines (`<name> tick failed`). */
  name: string;
  /** Pause between rounds. */
  intervalMs: number;
  logger: Logger;
  /** Longest pause after failed rounds: each failure in a row doubles it from the interval up to this. */
  maxBackoffMs?: number;
  /** What the log line carries as `err` (the EVM watcher keeps viem's request bodies out of the logs). */
  describeError?: (error: unknown) => unknown;
}

/**
 * One timer-driven worker loop, which the relayer worker, each EVM watcher and the webhook worker extend
 * with their round of work (`tick()`, also called directly by tests): one round at a time, the next one
 * `intervalMs` after the last ended. A round's errors are logged and retried; they never stop the loop. A failed round (the database or an RPC node
 * down) is logged and the pause doubles, up to `maxBackoffMs`, until a round succeeds. `wake()` runs
 * the next round now instead of after the pause, and `stop()` resolves once the round in flight ended,
 * so nothing writes after its owner closed the database.
 */
export abstract class PollingLoop {
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private stopped = true;
  private failures = 0;
  /** A wake() arrived during a round: the next one starts as soon as it ends. */
  private woken = false;
  private readonly maxBackoffMs: number;

  constructor(private readonly loop: PollingLoopOptions) {
    this.maxBackoffMs = Math.max(loop.maxBackoffMs ?? 30_000, loop.intervalMs);
  }

  /** One round of work. */
  abstract tick(): Promise<unknown>;

  /** What the timer runs each round: `tick()`, unless a worker's round may leave work running (src/webhooks/worker.ts). */
  protected roundWork(): Promise<unknown> {
    return this.tick();
  }

  get isRunning(): boolean {
    return !this.stopped;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Runs the next round now (or right after the one in flight); nothing once stopped. */
  wake(): void {
    if (this.stopped) return;
    if (this.inFlight) this.woken = true;
    else this.schedule(0);
  }

  /** Stops the loop; resolves when the round in flight (if any) has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.inFlight;
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.round(), delayMs);
  }

  private async round(): Promise<void> {
    if (this.stopped || this.inFlight) return;
    this.woken = false;
    let delay = this.loop.intervalMs;
    this.inFlight = this.roundWork().then(
      () => {
        this.failures = 0;
      },
      (error: unknown) => {
        this.failures++;
        delay = Math.min(this.loop.intervalMs * 2 ** this.failures, this.maxBackoffMs);
        const err = this.loop.describeError ? this.loop.describeError(error) : error;
        this.loop.logger.warn({ err, retryInMs: delay }, `${this.loop.name} tick failed`);
      },
    );
    await this.inFlight;
    this.inFlight = undefined;
    if (!this.stopped) this.schedule(this.woken ? 0 : delay);
  }
}
