import type { ChainAdapter, ChainHealth, ClaimSubmission, TransactionState } from './chain-adapter.ts';

/**
 * One adapter for the worker: chains configured for real (an RPC URL) go to their adapter, every
 * other chain to the fallback, the simulated chain.
 */
export class ChainRouter implements ChainAdapter {
  constructor(
    private readonly real: { adapter: ChainAdapter; handles: (chain: string) => boolean } | undefined,
    private readonly fallback: ChainAdapter,
  ) {}

  private adapterFor(chain: string): ChainAdapter {
    return this.real?.handles(chain) ? this.real.adapter : this.fallback;
  }

  submitClaim(submission: ClaimSubmission): Promise<{ txHash: string }> {
    return this.adapterFor(submission.chain).submitClaim(submission);
  }

  transactionState(chain: string, txHash: string): Promise<TransactionState> {
    return this.adapterFor(chain).transactionState(chain, txHash);
  }

  async health(): Promise<Record<string, ChainHealth>> {
    const [simulated, real] = await Promise.all([this.fallback.health(), this.real?.adapter.health() ?? {}]);
    return { ...simulated, ...real };
  }
}
