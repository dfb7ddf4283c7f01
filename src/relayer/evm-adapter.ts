import type { Logger } from 'pino';
import {
  BaseError,
  ContractFunctionRevertedError,
  TransactionReceiptNotFoundError,
  createWalletClient,
  decodeFunctionData,
  http,
  nonceManager,
  type Hex,
  type PrivateKeyAccount,
  type PublicClient,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { EvmChainSettings } from '../chains/evm/chain-config.ts';
import { EscrowState, escrowAbi } from '../chains/evm/escrow-abi.ts';
import { TransientChainError, type ChainAdapter, type ChainHealth, type ClaimSubmission, type TransactionState } from './chain-adapter.ts';

/**
 * Claims destination escrows on EVM chains (viem over JSON-RPC). A claim is sent at most once per
 * escrow: before sending, the escrow's on-chain state, this process's own sends and the node's
 * pending block are checked, and an existing claim's transaction is returned instead. Errors are
 * classified for the worker: RPC trouble is transient (retried with backoff), an escrow that can no
 * longer be claimed or a claim that would revert is final. The relayer key and the secret never
 * reach a log or an error message.
 */

export interface EvmClaimChain {
  settings: EvmChainSettings;
  client: PublicClient;
}

export interface EvmClaimAdapterOptions {
  chains: readonly EvmClaimChain[];
  /** RELAYER_PRIVATE_KEY; without it claims on these chains fail with that reason. */
  privateKey: Hex | undefined;
  logger: Logger;
}

/** A claim that can never succeed: not worth retrying. */
class ClaimRefused extends Error {}

interface ClaimChain extends EvmClaimChain {
  wallet: WalletClient | undefined;
}

export class EvmClaimAdapter implements ChainAdapter {
  private readonly chains = new Map<string, ClaimChain>();
  private readonly account: PrivateKeyAccount | undefined;
  /** Claims this process sent, by chain and swap id: a retry after a lost answer returns them. */
  private readonly sent = new Map<string, Hex>();

  constructor(readonly options: EvmClaimAdapterOptions) {
    // viem's nonce manager hands out consecutive nonces to concurrent sends from one account.
    this.account = options.privateKey ? privateKeyToAccount(options.privateKey, { nonceManager }) : undefined;
    for (const chain of options.chains) {
      const wallet = this.account
        ? createWalletClient({ account: this.account, transport: http(chain.settings.rpcUrl, { timeout: 10_000 }) })
        : undefined;
      this.chains.set(chain.settings.id, { ...chain, wallet });
    }
    if (!this.account && options.chains.length > 0) {
      options.logger.warn('RELAYER_PRIVATE_KEY is not set: claims on EVM chains will fail');
    }
  }

  /** The relayer's address (public), for health and tests. */
  get address(): Hex | undefined {
    return this.account?.address;
  }

  handles(chain: string): boolean {
    return this.chains.has(chain);
  }

  async submitClaim(submission: ClaimSubmission): Promise<{ txHash: string }> {
    const chain = this.chainOf(submission.chain);
    const swapId = `0x${submission.swapId}` as Hex;
    const key = `${chain.settings.id}:${submission.swapId}`;
    return this.classify(submission.secret, async () => {
      const { escrowAddress: address } = chain.settings;
      const swap = await chain.client.readContract({ address, abi: escrowAbi, functionName: 'swaps', args: [swapId] });
      const [, , , , , cancelAfter, state] = swap;
      if (state === EscrowState.claimed) return { txHash: await this.findClaim(chain, swapId, submission.createBlockNumber) };
      if (state === EscrowState.cancelled) throw new ClaimRefused('escrow cancelled');
      if (state !== EscrowState.open) throw new ClaimRefused('escrow not found on chain');

      const earlier = this.sent.get(key) ?? (await this.findPendingClaim(chain, swapId));
      if (earlier) return { txHash: earlier };

      const latest = await chain.client.getBlock({ blockTag: 'latest' });
      if (latest.timestamp >= cancelAfter) throw new ClaimRefused('escrow expired: its cancel_after has passed on chain');
      if (!this.account || !chain.wallet) throw new ClaimRefused('RELAYER_PRIVATE_KEY is not set: cannot sign claims');

      // A claim that would revert fails here, with the contract's reason, before any gas is spent.
      const { request } = await chain.client.simulateContract({
        account: this.account,
        address,
        abi: escrowAbi,
        functionName: 'claim',
        args: [swapId, `0x${submission.secret}`],
      });
      const txHash = await chain.wallet.writeContract({ ...request, chain: null });
      this.sent.set(key, txHash);
      return { txHash };
    });
  }

  async transactionState(chainId: string, txHash: string): Promise<TransactionState> {
    const chain = this.chainOf(chainId);
    const hash = txHash as Hex;
    return this.classify(undefined, async () => {
      let receipt;
      try {
        receipt = await chain.client.getTransactionReceipt({ hash });
      } catch (error) {
        if (error instanceof TransactionReceiptNotFoundError) return { state: 'pending' as const };
        throw error;
      }
      if (receipt.status === 'reverted') {
        const tx = await chain.client.getTransaction({ hash });
        // A revert that burned the whole gas limit ran out of gas; any other is the contract refusing.
        return { state: 'failed' as const, reason: receipt.gasUsed >= tx.gas ? 'out of gas' : 'reverted' };
      }
      const head = await chain.client.getBlockNumber({ cacheTime: 0 });
      const confirmations = head - receipt.blockNumber + 1n;
      return confirmations >= BigInt(chain.settings.confirmations) ? { state: 'confirmed' as const } : { state: 'pending' as const };
    });
  }

  async health(): Promise<Record<string, ChainHealth>> {
    const entries = await Promise.all(
      [...this.chains.values()].map(async (chain): Promise<[string, ChainHealth]> => {
        try {
          const block = await chain.client.getBlockNumber({ cacheTime: 0 });
          return [chain.settings.id, { adapter: 'evm', ok: true, detail: `head block ${block}` }];
        } catch (error) {
          return [chain.settings.id, { adapter: 'evm', ok: false, detail: shortMessage(error) }];
        }
      }),
    );
    return Object.fromEntries(entries);
  }

  private chainOf(id: string): ClaimChain {
    const chain = this.chains.get(id);
    if (!chain) throw new Error(`no EVM chain "${id}" is configured`);
    return chain;
  }

  /**
   * The transaction of the Claimed event, for an escrow found already claimed: searched backwards
   * from the head in bounded ranges (providers cap getLogs), down to the escrow's create block.
   */
  private async findClaim(chain: ClaimChain, swapId: Hex, createBlock: bigint): Promise<Hex> {
    const range = 5_000n;
    for (let to = await chain.client.getBlockNumber({ cacheTime: 0 }); to >= createBlock; to -= range) {
      const from = to - range + 1n > createBlock ? to - range + 1n : createBlock;
      const logs = await chain.client.getContractEvents({
        address: chain.settings.escrowAddress,
        abi: escrowAbi,
        eventName: 'Claimed',
        args: { swapId },
        fromBlock: from,
        toBlock: to,
        strict: true,
      });
      if (logs[0]) return logs[0].transactionHash;
    }
    throw new TransientChainError('escrow is claimed but its Claimed event is not visible yet');
  }

  /**
   * Our own claim for this escrow waiting in the node's pending block: sent before a crash that lost
   * its record. Nodes that do not serve the pending block simply answer nothing here.
   */
  private async findPendingClaim(chain: ClaimChain, swapId: Hex): Promise<Hex | undefined> {
    if (!this.account) return undefined;
    let pending;
    try {
      pending = await chain.client.getBlock({ blockTag: 'pending', includeTransactions: true });
    } catch {
      return undefined;
    }
    const own = this.account.address.toLowerCase();
    const escrow = chain.settings.escrowAddress.toLowerCase();
    for (const tx of pending.transactions) {
      if (tx.from.toLowerCase() !== own || tx.to?.toLowerCase() !== escrow) continue;
      try {
        const call = decodeFunctionData({ abi: escrowAbi, data: tx.input });
        if (call.functionName === 'claim' && call.args[0].toLowerCase() === swapId.toLowerCase()) return tx.hash;
      } catch {
        // not one of the escrow's calls
      }
    }
    return undefined;
  }

  /**
   * Turns viem's errors into the worker's two kinds, with messages safe to log and store: viem's long
   * messages carry request bodies, and a claim's calldata holds the secret.
   */
  private async classify<T>(secret: string | undefined, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      const scrub = (message: string) => (secret ? message.replaceAll(new RegExp(secret, 'gi'), '[redacted]') : message);
      if (error instanceof ClaimRefused || error instanceof TransientChainError)
        throw new (error.constructor as typeof Error)(scrub(error.message));
      const reverted = error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : null;
      if (reverted instanceof ContractFunctionRevertedError) {
        throw new Error(scrub(`reverted: ${reverted.reason ?? reverted.shortMessage}`));
      }
      if (error instanceof BaseError && /out of gas|intrinsic gas too low/i.test(error.message)) {
        throw new Error('out of gas');
      }
      // RPC unreachable, timeouts, rate limits, nonce races: worth another try.
      throw new TransientChainError(scrub(`chain RPC error: ${shortMessage(error)}`));
    }
  }
}

/** viem's short message and the node's own words (`details`), without request bodies or URLs. */
function shortMessage(error: unknown): string {
  if (error instanceof BaseError) {
    const details = (error.walk() as BaseError).details;
    return details && details !== error.shortMessage ? `${error.shortMessage} (${details})` : error.shortMessage;
  }
  return error instanceof Error ? error.message : String(error);
}
