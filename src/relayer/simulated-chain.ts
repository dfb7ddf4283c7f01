import { createHash } from 'node:crypto';
import type { EscrowEvent } from '../domain/escrow-events.ts';
import { TransientChainError, type ChainAdapter, type ChainHealth, type ClaimSubmission, type TransactionState } from './chain-adapter.ts';

export interface SimulatedChainOptions {
  /** How long until a claim is mined and seen (ms). */
  confirmAfterMs: number;
  /** Chain ids it stands in for (for /relayer/health). */
  chains: readonly string[];
  /**
   * Where the simulated watcher reports the mined claim: the same ingestion path as
   * POST /intents/{swap_id}/events.
   */
  ingest: (swapId: string, event: EscrowEvent) => Promise<void>;
  now: () => Date;
  onError?: (error: unknown) => void;
}

interface SentClaim {
  chain: string;
  swapId: string;
  secret: string;
  blockNumber: bigint;
  state: TransactionState;
}

/**
 * A stand-in chain, the default adapter: it "mines" a claim after a delay and reports it the way a
 * chain watcher would. Like a real chain, one escrow can be claimed once: sending the same claim
 * again returns the first transaction.
 */
export class SimulatedChain implements ChainAdapter {
  private readonly sent = new Map<string, SentClaim>();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Failures to inject, for tests of the relayer's retries: each submit takes one. */
  failuresToInject: Error[] = [];
  submissions = 0;

  constructor(private readonly options: SimulatedChainOptions) {}

  async submitClaim(submission: ClaimSubmission): Promise<{ txHash: string }> {
    this.submissions++;
    const injected = this.failuresToInject.shift();
    if (injected) throw injected;
    const txHash = `0x${createHash('sha256').update(`simulated-claim:${submission.chain}:${submission.swapId}`).digest('hex')}`;
    if (this.sent.has(txHash)) return { txHash };
    const claim: SentClaim = {
      chain: submission.chain,
      swapId: submission.swapId,
      secret: submission.secret,
      blockNumber: submission.createBlockNumber + 1n,
      state: { state: 'pending' },
    };
    this.sent.set(txHash, claim);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.mine(txHash, claim);
    }, this.options.confirmAfterMs);
    this.timers.add(timer);
    return { txHash };
  }

  private async mine(txHash: string, claim: SentClaim): Promise<void> {
    claim.state = { state: 'confirmed' };
    const timestamp = new Date(Math.floor(this.options.now().getTime() / 1000) * 1000);
    try {
      await this.options.ingest(claim.swapId, {
        kind: 'claim',
        txHash,
        blockNumber: claim.blockNumber,
        timestamp,
        commitment: claim.secret,
      });
    } catch (error) {
      this.options.onError?.(error);
    }
  }

  async transactionState(_chain: string, txHash: string): Promise<TransactionState> {
    // Another instance's simulated chain sent it: its watcher report is what confirms it.
    return this.sent.get(txHash)?.state ?? { state: 'pending' };
  }

  async health(): Promise<Record<string, ChainHealth>> {
    return Object.fromEntries(this.options.chains.map((chain) => [chain, { adapter: 'simulated', ok: true }]));
  }

  /** Mines every pending claim now (tests). */
  async flush(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.all([...this.sent.entries()].filter(([, c]) => c.state.state === 'pending').map(([hash, c]) => this.mine(hash, c)));
  }

  stop(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}

export { TransientChainError };
