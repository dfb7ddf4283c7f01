/**
 * How the relayer reaches a chain. The worker and the domain only know this interface; the
 * simulated chain (the default) and an EVM adapter (viem over JSON-RPC) implement it.
 */

export interface ClaimSubmission {
  chain: string;
  swapId: string;
  /** The secret that unlocks the escrow. Adapters must never log it. */
  secret: string;
  /** The escrow contract, from the registry. */
  registryAddress: string | null;
  /** Where the escrow was created: a lower bound for the claim's block. */
  createBlockNumber: bigint;
}

export type TransactionState = { state: 'pending' } | { state: 'confirmed' } | { state: 'failed'; reason: string };

export interface ChainHealth {
  adapter: string;
  ok: boolean;
  detail?: string;
}

export interface ChainAdapter {
  /**
   * Sends the claim. Must be safe to call again for the same escrow (after a crash between sending
   * and recording it): an adapter checks the escrow's on-chain state first and returns the existing
   * transaction instead of sending a second one.
   */
  submitClaim(submission: ClaimSubmission): Promise<{ txHash: string }>;
  transactionState(chain: string, txHash: string): Promise<TransactionState>;
  health(): Promise<Record<string, ChainHealth>>;
}

/** Worth retrying (RPC down, nonce race); anything else fails the claim. */
export class TransientChainError extends Error {
  override readonly name = 'TransientChainError';
}
