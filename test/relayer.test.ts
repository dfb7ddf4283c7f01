import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect } from 'vitest';
import { TransientChainError, type ChainAdapter, type ClaimSubmission } from '../src/relayer/chain-adapter.ts';
import { RelayerWorker } from '../src/relayer/worker.ts';
import { type TestApp, it } from './support/app.ts';
import { escrowEvent, postEvent } from './support/events.ts';
import { makeQuote, newSecret, orderBody } from './support/fixtures.ts';

/** Everything the service logs, at the most verbose level, to search for secrets. */
const logLines: string[] = [];
const capture = pino(
  { level: 'trace' },
  new Writable({
    write(chunk, _enc, done) {
      logLines.push(String(chunk));
      done();
    },
  }),
);

it.override('appOptions', { logger: capture });

/** An order whose destination escrow is created: ready for the relayer. */
async function claimableOrder(app: TestApp) {
  const { secret, commitmentHash } = newSecret();
  const quote = await makeQuote(app);
  const order = (await app.rest('POST', '/orders', orderBody(quote, { commitment_hash: commitmentHash }))).body.result;
  // Created before any instance's clock says the claim is made (a claim may not predate its escrow).
  const createdAt = new Date(app.clock.now().getTime() - 3_600_000);
  await postEvent(app, order.source_intent.swap_id, escrowEvent('create', 10, {}, createdAt));
  await postEvent(app, order.destination_intent.swap_id, escrowEvent('create', 2000, {}, createdAt));
  return { order, secret, orderId: order.order_id as string };
}

const submit = (orderId: string, commitment: string, app: TestApp) =>
  app.rest('POST', '/relayer/claims', { order_id: orderId, commitment });

describe('POST /relayer/claims', () => {
  it('claims the destination for the user: queued -> submitted -> confirmed, the order follows', async ({ t }) => {
    const { orderId, secret } = await claimableOrder(t);
    const accepted = await submit(orderId, secret, t);
    expect(accepted.status).toBe(202);
    expect(accepted.body.result).toMatchObject({ order_id: orderId, status: 'queued', attempts: 0, tx_hash: null });
    expect(JSON.stringify(accepted.body)).not.toContain(secret);

    // Stored before the 202: a new worker (another instance, after a crash) finds it.
    await t.runtime.worker.tick();
    const submitted = (await t.rest('GET', `/relayer/claims/${orderId}`)).body.result;
    expect(submitted).toMatchObject({ status: 'submitted', attempts: 1 });
    expect(submitted.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);

    await t.runtime.chain.flush(); // the simulated chain mines it and its watcher reports the claim
    const order = (await t.rest('GET', `/orders/${orderId}`)).body.result;
    expect(order.status).toBe('destination_claimed');
    expect(order.destination_intent).toMatchObject({ claim_tx_hash: submitted.tx_hash, commitment: secret });

    await t.runtime.worker.tick();
    const confirmed = (await t.rest('GET', `/relayer/claims/${orderId}`)).body.result;
    expect(confirmed).toMatchObject({ status: 'confirmed', tx_hash: submitted.tx_hash, attempts: 1 });
    const gql = await t.gql(`{ claim(orderId: "${orderId}") { status txHash } }`);
    expect(gql.data.claim).toEqual({ status: 'CONFIRMED', txHash: submitted.tx_hash });
  });

  it('is idempotent: a repeat answers 202 with the same claim and is submitted once', async ({ t }) => {
    const { orderId, secret } = await claimableOrder(t);
    const submissions = t.runtime.chain.submissions;
    const replies = await Promise.all(Array.from({ length: 5 }, () => submit(orderId, secret, t)));
    expect(replies.map((r) => r.status)).toEqual([202, 202, 202, 202, 202]);
    await t.runtime.worker.tick();
    await t.runtime.worker.tick();
    expect(t.runtime.chain.submissions - submissions).toBe(1);
    expect((await submit(orderId, secret, t)).body.result.status).toBe('submitted');
  });

  it('refuses with the reason: 400 bad input or wrong secret, 404 unknown order, 409 wrong state', async ({ t }) => {
    const { orderId, secret, order } = await claimableOrder(t);
    expect((await submit(orderId, 'zz', t)).status).toBe(400);
    const wrong = await submit(orderId, newSecret().secret, t);
    expect(wrong).toMatchObject({ status: 400, body: { result: "commitment does not hash to the order's commitment_hash" } });
    expect((await submit('0'.repeat(64), secret, t)).status).toBe(404);
    expect((await t.rest('GET', `/relayer/claims/${'1'.repeat(64)}`)).status).toBe(404);

    // Destination not created yet.
    const early = newSecret();
    const quote = await makeQuote(t);
    const fresh = (await t.rest('POST', '/orders', orderBody(quote, { commitment_hash: early.commitmentHash }))).body.result;
    const notYet = await submit(fresh.order_id, early.secret, t);
    expect(notYet).toMatchObject({ status: 409, body: { result: 'the destination escrow is not created yet' } });

    // Destination already claimed.
    await postEvent(t, order.destination_intent.swap_id, escrowEvent('claim', 2001, { commitment: secret }));
    expect((await submit(orderId, secret, t)).status).toBe(409);
  });

  it('fails a submitted claim at once when the destination escrow is cancelled: it can never land', async ({ t }) => {
    const { order, orderId, secret } = await claimableOrder(t);
    expect((await submit(orderId, secret, t)).status).toBe(202);
    await t.runtime.worker.tick();
    expect((await t.rest('GET', `/relayer/claims/${orderId}`)).body.result.status).toBe('submitted');
    // The solver's cancel is seen before the claim is mined.
    const cancelled = await postEvent(t, order.destination_intent.swap_id, escrowEvent('cancel', 2001, {}, t.clock.now()));
    expect(cancelled.status).toBe(200);
    await t.runtime.worker.tick();
    const failed = (await t.rest('GET', `/relayer/claims/${orderId}`)).body.result;
    expect(failed).toMatchObject({ status: 'failed', last_error: 'the destination escrow was cancelled' });
    // A repeat of the accepted request answers with the claim as it stands (README, Lifecycle and relayer).
    expect((await submit(orderId, secret, t)).body.result.status).toBe('failed');
  });

  it("refuses once the destination's cancel_after has passed", async ({ t, clock }) => {
    const { orderId, secret } = await claimableOrder(t);
    clock.advance(12 * 3600);
    const late = await submit(orderId, secret, t);
    expect(late.status).toBe(409);
    expect(late.body.result).toContain('cancel_after');
  });

  it('retries transient failures with backoff, then confirms', async ({ t, clock }) => {
    const { orderId, secret } = await claimableOrder(t);
    await submit(orderId, secret, t);
    t.runtime.chain.failuresToInject.push(new TransientChainError('rpc timeout'), new TransientChainError('rpc timeout'));
    await t.runtime.worker.tick();
    let claim = (await t.rest('GET', `/relayer/claims/${orderId}`)).body.result;
    expect(claim).toMatchObject({ status: 'queued', attempts: 1, last_error: 'rpc timeout' });
    await t.runtime.worker.tick(); // not due yet: backoff
    expect((await t.rest('GET', `/relayer/claims/${orderId}`)).body.result.attempts).toBe(1);
    clock.advance(1);
    await t.runtime.worker.tick();
    expect((await t.rest('GET', `/relayer/claims/${orderId}`)).body.result).toMatchObject({ status: 'queued', attempts: 2 });
    clock.advance(2);
    await t.runtime.worker.tick();
    claim = (await t.rest('GET', `/relayer/claims/${orderId}`)).body.result;
    expect(claim).toMatchObject({ status: 'submitted', attempts: 3, last_error: null });
  });

  it('fails for good on a permanent error, or after the last attempt, with the reason', async ({ t, clock }) => {
    const permanent = await claimableOrder(t);
    await submit(permanent.orderId, permanent.secret, t);
    t.runtime.chain.failuresToInject.push(new Error('execution reverted: escrow expired'));
    await t.runtime.worker.tick();
    expect((await t.rest('GET', `/relayer/claims/${permanent.orderId}`)).body.result).toMatchObject({
      status: 'failed',
      last_error: 'execution reverted: escrow expired',
    });

    const flaky = await claimableOrder(t);
    await submit(flaky.orderId, flaky.secret, t);
    for (let i = 0; i < 5; i++) {
      t.runtime.chain.failuresToInject.push(new TransientChainError('node unreachable'));
      await t.runtime.worker.tick();
      clock.advance(60);
    }
    expect((await t.rest('GET', `/relayer/claims/${flaky.orderId}`)).body.result).toMatchObject({
      status: 'failed',
      attempts: 5,
      last_error: 'node unreachable',
    });
  });

  it('never logs the secret', async ({ t }) => {
    const { orderId, secret } = await claimableOrder(t);
    await submit(orderId, secret, t);
    await t.runtime.worker.tick();
    await t.runtime.chain.flush();
    await t.runtime.worker.tick();
    expect((await t.rest('GET', `/relayer/claims/${orderId}`)).body.result.status).toBe('confirmed');
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('\n')).not.toContain(secret);
  });
});

describe('GET /relayer/health', () => {
  it('reports JSON (no envelope) with the queue depth and each chain', async ({ t }) => {
    const reply = await t.rest('GET', '/relayer/health');
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ status: expect.stringMatching(/^(ok|degraded)$/), queue_depth: expect.any(Number) });
    expect(reply.body.chains.ethereum).toEqual({ adapter: 'simulated', ok: true });
    // The worker is not started in tests: the relayer says it is degraded.
    expect(reply.body.status).toBe('degraded');
    expect(reply.body.worker).toBe('stopped');
  });
});

describe('two instances', () => {
  // Two instances on a database of their own, where no other app's worker takes claims.
  let a: TestApp;
  let b: TestApp;
  it.beforeAll(async ({ apps }) => {
    a = await apps({ freshDatabase: true });
    b = await apps({ db: a.db });
  });

  it('submit each claim exactly once when their workers race', async () => {
    const claims = [];
    for (let i = 0; i < 12; i++) claims.push(await claimableOrder(a));
    for (const c of claims) expect((await submit(c.orderId, c.secret, a)).status).toBe(202);
    await Promise.all([a.runtime.worker.tick(), b.runtime.worker.tick(), a.runtime.worker.tick(), b.runtime.worker.tick()]);
    expect(a.runtime.chain.submissions + b.runtime.chain.submissions).toBe(12);
    const rows = await a.db.prisma.relayerClaim.findMany({ where: { orderId: { in: claims.map((c) => c.orderId) } } });
    expect(rows.every((r) => r.status === 'submitted' && r.attempts === 1)).toBe(true);
  });

  /**
   * A worker whose chain call outlasts its lease (a GC pause, a slow RPC): another instance takes the
   * claim over and submits it. The stalled worker's outcome, success or failure, must change nothing.
   */
  describe('a worker that stalls past its lease', () => {
    class StalledChain implements ChainAdapter {
      sent: ClaimSubmission[] = [];
      private finish: ((outcome: { txHash: string } | Error) => void) | undefined;
      submitClaim(submission: ClaimSubmission) {
        this.sent.push(submission);
        return new Promise<{ txHash: string }>((resolve, reject) => {
          this.finish = (outcome) => (outcome instanceof Error ? reject(outcome) : resolve(outcome));
        });
      }
      release(outcome: { txHash: string } | Error) {
        this.finish?.(outcome);
      }
      transactionState = async () => ({ state: 'pending' as const });
      health = async () => ({});
    }
    const stalledWorker = (chain: StalledChain, leaseMs: number) =>
      new RelayerWorker({ prisma: a.db.prisma, adapter: chain, logger: pino({ level: 'silent' }), now: a.clock.now, leaseMs });
    const until = async (check: () => boolean) => {
      for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
    };

    for (const outcome of ['success', 'failure'] as const) {
      it(`cannot overwrite the result of the instance that took over (${outcome})`, async () => {
        const { orderId, secret } = await claimableOrder(a);
        await submit(orderId, secret, a);
        const chain = new StalledChain();
        const stalled = stalledWorker(chain, 200).tick();
        await until(() => chain.sent.length === 1);
        expect(chain.sent[0]!.swapId).toBeDefined();

        // The lease lapses by the database's clock; B takes the claim over and submits it.
        await new Promise((r) => setTimeout(r, 300));
        await b.runtime.worker.tick();
        const taken = await a.db.prisma.relayerClaim.findUniqueOrThrow({ where: { orderId } });
        expect(taken).toMatchObject({ status: 'submitted', attempts: 2 });

        chain.release(outcome === 'success' ? { txHash: `0x${'ab'.repeat(32)}` } : new Error('execution reverted'));
        await stalled;
        const after = await a.db.prisma.relayerClaim.findUniqueOrThrow({ where: { orderId } });
        expect(after).toMatchObject({ status: 'submitted', txHash: taken.txHash, lastError: null });
      });
    }

    it("keeps its lease by the database clock, whatever the other instance's clock says", async () => {
      const { orderId, secret } = await claimableOrder(a);
      await submit(orderId, secret, a);
      const chain = new StalledChain();
      const holding = stalledWorker(chain, 30_000).tick();
      await until(() => chain.sent.length === 1);
      b.clock.advance(3600);
      try {
        await b.runtime.worker.tick();
        expect(await a.db.prisma.relayerClaim.findUniqueOrThrow({ where: { orderId } })).toMatchObject({ status: 'queued', attempts: 1 });
      } finally {
        b.clock.advance(-3600);
        chain.release({ txHash: `0x${'cd'.repeat(32)}` });
        await holding;
      }
      expect(await a.db.prisma.relayerClaim.findUniqueOrThrow({ where: { orderId } })).toMatchObject({
        status: 'submitted',
        txHash: `0x${'cd'.repeat(32)}`,
      });
    });
  });
});
