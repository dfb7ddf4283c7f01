import { getAddress, type Address } from 'viem';
import { ConfigError, type Config } from '../../config.ts';
import type { Chain, Registry } from '../../domain/registry/registry.ts';

/**
 * The settings of each EVM chain that is real in this deployment: the registry's `rpc_url`,
 * `registry_address` (the escrow contract), `confirmations` and `start_block`, each overridable by
 * EVM_<CHAIN>_RPC_URL, _ESCROW_ADDRESS, _CONFIRMATIONS and _START_BLOCK. A chain with no RPC URL
 * stays on the simulated chain, so with nothing configured every chain is simulated.
 */

export interface EvmChainSettings {
  /** The registry's chain id ("ethereum"), the `chain` of intents. */
  id: string;
  /** EIP-155 chain id; checked against the node's eth_chainId at start. */
  chainId: number;
  rpcUrl: string;
  escrowAddress: Address;
  /** Blocks that must exist from an event's block on (1 = mined) before it is trusted. */
  confirmations: number;
  /** First block the watcher reads on a new database. */
  startBlock: bigint;
}

/**
 * Reorgs deeper than this are rare on mainnets; testnets are shallow-ish but less settled.
 * Counted as Ethereum wallets do: the event's own block is the first confirmation.
 */
export const DEFAULT_CONFIRMATIONS = { mainnet: 12, testnet: 2 } as const;

/** The name part of a chain's EVM_<CHAIN>_* variables. */
export const envNameOf = (chainId: string): string => chainId.toUpperCase().replace(/-/g, '_');

/**
 * The EVM chains to watch and claim on: those with an RPC URL. Throws ConfigError listing every
 * problem: an override for a chain the registry does not list as EVM, or an RPC URL with no escrow.
 */
export function resolveEvmChains(registry: Registry, config: Pick<Config, 'evmOverrides'>): EvmChainSettings[] {
  const problems: string[] = [];
  const byEnvName = new Map(registry.chains.map((chain) => [envNameOf(chain.id).toLowerCase(), chain]));
  for (const name of Object.keys(config.evmOverrides)) {
    const chain = byEnvName.get(name);
    if (chain?.kind !== 'evm') {
      problems.push(`  EVM_${name.toUpperCase()}_*: the registry has no evm chain with id "${name}"`);
    }
  }
  const settings: EvmChainSettings[] = [];
  for (const chain of registry.chains) {
    if (chain.kind !== 'evm') continue;
    const resolved = resolveChain(chain, config.evmOverrides[envNameOf(chain.id).toLowerCase()] ?? {}, problems);
    if (resolved) settings.push(resolved);
  }
  if (problems.length > 0) throw new ConfigError(`Invalid EVM chain configuration:\n${problems.join('\n')}`);
  return settings;
}

function resolveChain(chain: Chain, override: Config['evmOverrides'][string], problems: string[]): EvmChainSettings | undefined {
  const rpcUrl = override.rpcUrl ?? chain.rpc_url;
  if (rpcUrl === undefined) return undefined;
  const escrow = override.escrowAddress ?? chain.registry_address;
  if (escrow === null) {
    problems.push(
      `  EVM_${envNameOf(chain.id)}_ESCROW_ADDRESS: chain "${chain.id}" has an RPC URL but no escrow contract (set it or registry_address)`,
    );
    return undefined;
  }
  return {
    id: chain.id,
    chainId: chain.chain_id!,
    rpcUrl,
    escrowAddress: getAddress(escrow.toLowerCase()),
    confirmations: override.confirmations ?? chain.confirmations ?? DEFAULT_CONFIRMATIONS[chain.network],
    startBlock: BigInt(override.startBlock ?? chain.start_block ?? 0),
  };
}
