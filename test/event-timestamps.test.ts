import { describe, expect } from 'vitest';
import { type TestApp, it } from './support/app.ts';
import { escrowEvent, postEvent } from './support/events.ts';
import { makeQuote, newSecret, orderBody } from './support/fixtures.ts';

/** Escrow events whose timestamps contradict the order's history are refused (src/domain/escrow-events.ts). */
describe('event timestamps', () => {
  async function order(t: TestApp) {
    const { secret, commitmentHash } = newSecret();
    const quote = await makeQuote(t);
    const created = (await t.rest('POST', '/orders', orderBody(quote, { commitment_hash: commitmentHash }))).body.result;
    return { src: created.source_intent.swap_id as string, dst: created.destination_intent.swap_id as string, secret };
  }
  const at = (t: TestApp, seconds: number) => new Date(t.clock.now().getTime() + seconds * 1000);

  it('refuses a claim or cancel dated before its escrow create', async ({ t }) => {
    const { src, dst, secret } = await order(t);
    expect((await postEvent(t, src, escrowEvent('create', 10, {}, at(t, 60)))).status).toBe(200);
    const cancel = await postEvent(t, src, escrowEvent('cancel', 11, {}, at(t, 30)));
    expect(cancel.status).toBe(409);
    expect(cancel.body.result).toBe(
      `a cancel cannot be dated before the source escrow's create (${at(t, 60).toISOString().replace('.000', '')})`,
    );

    expect((await postEvent(t, dst, escrowEvent('create', 20, {}, at(t, 120)))).status).toBe(200);
    const claim = await postEvent(t, dst, escrowEvent('claim', 21, { commitment: secret }, at(t, 100)));
    expect(claim.status).toBe(409);
    expect(claim.body.result).toMatch(/^a claim cannot be dated before the destination escrow's create/);
  }, 90_000);

  it('refuses a date no calendar has, naming the field, before anything is recorded', async ({ t }) => {
    const { src } = await order(t);
    for (const timestamp of ['2026-02-30T18:00:00Z', '2026-04-31T00:00:00Z', '2026-01-01T23:60:00Z']) {
      const reply = await postEvent(t, src, { ...escrowEvent('create', 10), timestamp });
      expect(reply.status, timestamp).toBe(400);
      expect(reply.body.result, timestamp).toBe('timestamp must be an ISO 8601 timestamp such as 2026-01-31T12:00:00Z');
    }
    // Leap day in a leap year is a date.
    expect((await postEvent(t, src, { ...escrowEvent('create', 10), timestamp: '2028-02-29T00:00:00Z' })).status).toBe(200);
  }, 90_000);

  it('takes dates far from our clock as the chain gives them (a chain clock may run ahead); durations stay finite', async ({ t }) => {
    const { src, dst, secret } = await order(t);
    expect((await postEvent(t, src, escrowEvent('create', 10, {}, new Date('1970-01-01T00:00:00Z')))).status).toBe(200);
    expect((await postEvent(t, dst, escrowEvent('create', 20, {}, at(t, 30 * 3600)))).status).toBe(200);
    const claim = await postEvent(t, dst, escrowEvent('claim', 21, { commitment: secret }, new Date('9999-12-31T23:59:59Z')));
    expect(claim.status).toBe(200);
    const avg = Number((await t.rest('GET', '/stats')).body.result.all_time.avg_completion_time_secs);
    expect(Number.isFinite(avg) && avg >= 0).toBe(true);
  }, 90_000);
});
