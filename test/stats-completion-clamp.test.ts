import { describe, expect } from 'vitest';
import { type TestApp, it } from './support/app.ts';
import { escrowEvent, postEvent } from './support/events.ts';
import { makeQuote, newSecret, orderBody } from './support/fixtures.ts';

/**
 * Chain time and our clock differ: escrows (and so a claim) may be dated before the order was
 * recorded. Such an order completed in no time, never in negative time, in the statistics.
 */
describe('completion time of a claim dated before its order', () => {
  const at = (t: TestApp, seconds: number) => new Date(t.clock.now().getTime() + seconds * 1000);

  it('counts as zero seconds: avg_completion_time_secs stays >= 0', async ({ t }) => {
    const { secret, commitmentHash } = newSecret();
    const quote = await makeQuote(t);
    const created = (await t.rest('POST', '/orders', orderBody(quote, { commitment_hash: commitmentHash }))).body.result;
    const [src, dst] = [created.source_intent.swap_id as string, created.destination_intent.swap_id as string];
    expect((await postEvent(t, src, escrowEvent('create', 10, {}, at(t, -3600)))).status).toBe(200);
    expect((await postEvent(t, dst, escrowEvent('create', 20, {}, at(t, -3500)))).status).toBe(200);
    const claim = await postEvent(t, dst, escrowEvent('claim', 21, { commitment: secret }, at(t, -3400)));
    expect(claim.status).toBe(200);

    t.clock.advance(3600);
    const stats = (await t.rest('GET', '/stats')).body.result;
    expect(stats.all_time.completed_orders).toBe(1);
    expect(stats.all_time.avg_completion_time_secs).toBeGreaterThanOrEqual(0);
    expect(stats.last_24h.avg_completion_time_secs).toBeGreaterThanOrEqual(0);
  }, 90_000);
});
