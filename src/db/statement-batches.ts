/**
 * Calls share statements: under load, the fixed cost of a statement (a round trip, its parse and plan, the
 * statement-level triggers, the commit) is paid once for many rows (README, How it is built: Create).
 *
 * A call waits for the end of the event loop's turn it was made in (setImmediate): the requests whose bytes
 * arrived together, each handled in its own I/O callback, then go in one statement, for no timer's wait. At
 * most `inFlight` statements run at once; calls made while all are busy queue, and the first statement to
 * finish takes up to `most` of them together.
 */
export interface BatchOptions {
  inFlight: number;
  most: number;
}

/** Node's own, taken at load: a test that fakes the timers (vi.useFakeTimers fakes setImmediate) still writes. */
const realSetImmediate = globalThis.setImmediate;

/** Each call's own outcome, in the order of the calls: one refused item need not fail the others. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

export function batchedCalls<I, O>(run: (items: I[]) => Promise<Outcome<O>[]>, options: BatchOptions): (item: I) => Promise<O> {
  const waiting: { item: I; resolve: (value: O) => void; reject: (error: unknown) => void }[] = [];
  let running = 0;
  let turnEndScheduled = false;
  const next = () => {
    while (running < options.inFlight && waiting.length > 0) {
      const batch = waiting.splice(0, options.most);
      running++;
      // Through a promise even if `run` throws at once: every call settles, and the slot is freed.
      Promise.resolve()
        .then(() => run(batch.map((call) => call.item)))
        .then(
          (outcomes) => {
            batch.forEach((call, i) => {
              const outcome = outcomes[i] ?? { ok: false, error: new Error('statement batch: no outcome for a call') };
              if (outcome.ok) call.resolve(outcome.value);
              else call.reject(outcome.error);
            });
          },
          (error: unknown) => {
            for (const call of batch) call.reject(error);
          },
        )
        .finally(() => {
          running--;
          next();
        });
    }
  };
  // Microtasks run between two sockets' callbacks; only the check phase comes after all of this turn's.
  const nextAfterThisTurn = () => {
    if (turnEndScheduled) return;
    turnEndScheduled = true;
    realSetImmediate(() => {
      turnEndScheduled = false;
      next();
    });
  };
  return (item) =>
    new Promise<O>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      nextAfterThisTurn();
    });
}
