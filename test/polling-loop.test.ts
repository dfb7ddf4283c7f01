import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { PollingLoop } from '../src/polling-loop.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A loop whose round the test controls, with its log lines kept (real timers throughout). */
function harness(options: { intervalMs: number; maxBackoffMs?: number; tick?: () => Promise<unknown> }) {
  const lines: { msg: string; err: unknown; retryInMs: number }[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const starts: number[] = [];
  const loop = new (class extends PollingLoop {
    async tick() {
      starts.push(performance.now());
      await options.tick?.();
    }
  })({
    name: 'test',
    intervalMs: options.intervalMs,
    maxBackoffMs: options.maxBackoffMs,
    logger,
    describeError: (error) => (error instanceof Error ? error.message : String(error)),
  });
  loops.push(loop);
  return { loop, lines, starts };
}

const loops: PollingLoop[] = [];
afterEach(async () => {
  await Promise.all(loops.splice(0).map((l) => l.stop()));
});

describe('the polling loop', () => {
  it('runs a round at once on start, then one per interval, one at a time', async () => {
    let concurrent = 0;
    let most = 0;
    const { loop, starts } = harness({
      intervalMs: 40,
      tick: async () => {
        most = Math.max(most, ++concurrent);
        await sleep(30);
        concurrent--;
      },
    });
    const started = performance.now();
    loop.start();
    loop.start(); // a second start is no second loop
    expect(loop.isRunning).toBe(true);
    await sleep(330);
    await loop.stop();
    expect(starts[0]! - started).toBeLessThan(50);
    // Each round starts an interval after the previous one ended: 30 ms of work + 40 ms of pause.
    expect(starts.length).toBeGreaterThanOrEqual(3);
    expect(starts.length).toBeLessThanOrEqual(5);
    for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(68);
    expect(most).toBe(1);
  });

  it('stop() waits for the round in flight and no round starts after it', async () => {
    let finished = false;
    const { loop, starts } = harness({
      intervalMs: 10,
      tick: async () => {
        await sleep(150);
        finished = true;
      },
    });
    loop.start();
    await sleep(30);
    await loop.stop();
    expect(finished).toBe(true);
    expect(loop.isRunning).toBe(false);
    const rounds = starts.length;
    await sleep(60);
    expect(starts.length).toBe(rounds);
  });

  it('wake() runs the next round now instead of after the interval, and right after a round in flight', async () => {
    let release: (() => void) | undefined;
    const { loop, starts } = harness({
      intervalMs: 60_000,
      tick: () => (starts.length === 2 ? new Promise<void>((r) => (release = r)) : Promise.resolve()),
    });
    loop.wake(); // before start: nothing
    await sleep(20);
    expect(starts.length).toBe(0);

    loop.start();
    await sleep(20);
    expect(starts.length).toBe(1); // the first round; the next is a minute away
    loop.wake();
    await sleep(20);
    expect(starts.length).toBe(2); // woken: round two, which holds until released
    loop.wake(); // during round two
    await sleep(20);
    expect(starts.length).toBe(2);
    release!();
    await sleep(20);
    expect(starts.length).toBe(3); // the wake during round two ran round three right after it

    await loop.stop();
    loop.wake(); // after stop: nothing
    await sleep(20);
    expect(starts.length).toBe(3);
  });

  it('backs off on failures, doubling up to the cap, logs each, and starts over after a success', async () => {
    const outcomes = ['fail', 'fail', 'fail', 'fail', 'ok', 'fail'];
    const { loop, lines, starts } = harness({
      intervalMs: 20,
      maxBackoffMs: 200,
      tick: async () => {
        if (outcomes.shift() === 'fail') throw new Error('database unreachable');
      },
    });
    loop.start();
    // Failures at 0, 40, 120 and 280 ms (pauses 40, 80, 160, then 320 capped at 200), a success at 480,
    // a failure 20 ms later paused 40 ms as the first was, then successes every 20 ms.
    // Waits for the rounds rather than a fixed 640 ms: on a busy machine timers fire late, never early.
    for (const deadline = performance.now() + 10_000; starts.length < 8 && performance.now() < deadline; ) await sleep(20);
    await loop.stop();
    expect(lines).toEqual(
      [40, 80, 160, 200, 40].map((retryInMs) =>
        expect.objectContaining({ msg: 'test tick failed', err: 'database unreachable', retryInMs }),
      ),
    );
    const gaps = starts.slice(1).map((t, i) => t - starts[i]!);
    expect(gaps[0]).toBeGreaterThanOrEqual(39);
    expect(gaps[1]).toBeGreaterThanOrEqual(79);
    expect(gaps[2]).toBeGreaterThanOrEqual(159);
    expect(gaps[3]).toBeGreaterThanOrEqual(199);
    // After a success the pause is the interval again, and the next failure's pause the first one (40 ms, not
    // the 200 ms cap): upper bounds with room for a late timer on a busy machine.
    expect(gaps[4]).toBeLessThan(150);
    expect(gaps[5]).toBeGreaterThanOrEqual(39);
    expect(gaps[5]).toBeLessThan(150);
    expect(gaps[6]).toBeLessThan(150);
  });
});
