import { describe, expect, it, vi } from 'vitest';
import { batchedCalls, type Outcome } from '../src/db/statement-batches.ts';

/** The batcher behind the shared create statements (src/db/statement-batches.ts), with no database. */
describe('batched calls', () => {
  it('puts the calls made in one turn of the event loop in one run, and the calls made while it runs in the next', async () => {
    const batches: number[][] = [];
    const call = batchedCalls<number, number>(
      async (items) => {
        batches.push(items);
        await new Promise((r) => setTimeout(r, 10));
        return items.map((value) => ({ ok: true, value: value * 2 }));
      },
      { inFlight: 1, most: 3 },
    );
    const firstTurn = [1, 2, 3, 4].map(call);
    // A later turn, while the first run is busy: these wait for it, then share one run.
    await new Promise((r) => setImmediate(r));
    const laterTurn = [5, 6].map(call);
    expect(await Promise.all([...firstTurn, ...laterTurn])).toEqual([2, 4, 6, 8, 10, 12]);
    expect(batches).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
  });

  it('settles every call and frees the slot when a run throws at once or leaves a call without an outcome', async () => {
    let round = 0;
    const call = batchedCalls<number, number>(
      (items): Promise<Outcome<number>[]> => {
        round++;
        if (round === 1) throw new Error('thrown before any promise');
        if (round === 2) return Promise.resolve([{ ok: true, value: items[0]! }]);
        return Promise.resolve(items.map((value) => ({ ok: true, value })));
      },
      { inFlight: 1, most: 2 },
    );
    // Its own turn, handled before it settles.
    const first = expect(call(1)).rejects.toThrow('thrown before any promise');
    await new Promise((r) => setImmediate(r));
    const [second, third] = [call(2), call(3)];
    await first;
    await expect(second).resolves.toBe(2);
    await expect(third).rejects.toThrow('no outcome');
    await expect(call(4)).resolves.toBe(4);
  });

  it('still runs its calls while a test fakes the timers', async () => {
    vi.useFakeTimers();
    try {
      const call = batchedCalls<number, number>(async (items) => items.map((value) => ({ ok: true, value })), { inFlight: 1, most: 2 });
      await expect(call(5)).resolves.toBe(5);
    } finally {
      vi.useRealTimers();
    }
  });
});
