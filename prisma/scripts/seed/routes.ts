import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import type { Asset, Chain, Registry } from '../../../src/domain/registry/registry.ts';
import type { Rng } from './rng.ts';

/** Popular routes of the default registry, with relative popularity. */
const ROUTES: readonly (readonly [string, string, number])[] = [
  ['bitcoin:btc', 'ethereum:wbtc', 14],
  ['ethereum:wbtc', 'bitcoin:btc', 10],
  ['bitcoin:btc', 'base:cbbtc', 8],
  ['base:cbbtc', 'bitcoin:btc', 7],
  ['bitcoin:btc', 'arbitrum:wbtc', 6],
  ['arbitrum:wbtc', 'bitcoin:btc', 6],
  ['avalanche:btcb', 'bitcoin:btc', 3],
  ['ethereum:wbtc', 'base:cbbtc', 2],
  ['ethereum:usdc', 'base:usdc', 8],
  ['base:usdc', 'arbitrum:usdc', 5],
  ['arbitrum:usdc', 'ethereum:usdc', 4],
  ['ethereum:usdt', 'avalanche:usdc', 2],
  ['ethereum:eth', 'arbitrum:eth', 4],
  ['base:eth', 'ethereum:eth', 3],
  ['arbitrum:eth', 'base:eth', 2],
  ['solana:usdc', 'base:usdc', 3],
  ['solana:sol', 'ethereum:usdc', 2],
  ['bitcoin:btc', 'solana:sol', 1],
  ['avalanche:avax', 'ethereum:usdc', 1],
  ['bitcoin_testnet:btc', 'ethereum_sepolia:wbtc', 1],
  ['ethereum_sepolia:usdc', 'base_sepolia:usdc', 1],
];

export interface Route {
  source: Asset;
  sourceChain: Chain;
  destination: Asset;
  destChain: Chain;
  weight: number;
}

/** The popular routes the registry lists; for another registry, every cross-chain pair on one network. */
export function routesFor(registry: Registry): Route[] {
  const route = (sourceId: string, destId: string, weight: number): Route | null => {
    const source = registry.asset(sourceId);
    const destination = registry.asset(destId);
    const sourceChain = source && registry.chain(source.chain);
    const destChain = destination && registry.chain(destination.chain);
    if (!source || !destination || !sourceChain || !destChain || source.id === destination.id) return null;
    if (sourceChain.network !== destChain.network) return null;
    return { source, sourceChain, destination, destChain, weight };
  };
  const known = ROUTES.map(([s, d, w]) => route(s, d, w)).filter((r): r is Route => r !== null);
  if (known.length > 0) return known;
  const all: Route[] = [];
  for (const s of registry.assets) {
    for (const d of registry.assets) {
      if (s.chain === d.chain) continue;
      const r = route(s.id, d.id, 1);
      if (r) all.push(r);
    }
  }
  if (all.length === 0) throw new Error('the registry has no two assets on different chains of one network to swap');
  return all;
}

/**
 * A source amount a person would type: a USD value (log-uniform, a few whales), converted at the
 * asset's price, rounded to 1-4 significant digits, kept within the asset's min/max.
 */
export function sourceAmount(rng: Rng, asset: Asset): bigint {
  const usd = rng.chance(0.05) ? rng.logUniform(50_000, 400_000) : rng.logUniform(20, 50_000);
  const units = usd / Number(asset.price_usd);
  const digits = rng.weighted([1, 2, 3, 4], (d) => [25, 35, 25, 15][d - 1]!);
  const exponent = Math.floor(Math.log10(units)) - (digits - 1);
  const mantissa = BigInt(Math.max(1, Math.round(units / 10 ** exponent)));
  const shift = exponent + asset.decimals;
  let amount = shift >= 0 ? mantissa * 10n ** BigInt(shift) : mantissa / 10n ** BigInt(-shift);
  const min = BigInt(asset.min_amount);
  const max = BigInt(asset.max_amount);
  if (amount < min) amount = min;
  if (amount > max) amount = max;
  return amount;
}

/** Block time and a block height at 2025-01-01T00:00:00Z, for plausible block numbers. */
const BLOCKS: Record<string, { secs: number; base: number }> = {
  ethereum: { secs: 12, base: 21_525_000 },
  arbitrum: { secs: 0.25, base: 290_000_000 },
  base: { secs: 2, base: 24_600_000 },
  avalanche: { secs: 2, base: 55_000_000 },
  bitcoin: { secs: 600, base: 877_000 },
  solana: { secs: 0.4, base: 311_000_000 },
  ethereum_sepolia: { secs: 12, base: 7_400_000 },
  arbitrum_sepolia: { secs: 0.25, base: 110_000_000 },
  base_sepolia: { secs: 2, base: 20_000_000 },
  avalanche_fuji: { secs: 2, base: 37_000_000 },
  bitcoin_testnet: { secs: 600, base: 3_600_000 },
  solana_devnet: { secs: 0.4, base: 350_000_000 },
};
const BLOCK_EPOCH_SECS = Date.UTC(2025, 0, 1) / 1000;

/** The block a chain was at, at a time: monotonic in time, so an escrow's blocks never go backwards. */
export function blockAt(chain: Chain, atSecs: number): number {
  const spec = BLOCKS[chain.id] ?? { secs: chain.kind === 'bitcoin' ? 600 : chain.kind === 'solana' ? 0.4 : 2, base: 1_000_000 };
  return Math.max(1, spec.base + Math.floor((atSecs - BLOCK_EPOCH_SECS) / spec.secs));
}

export function txHash(chain: Chain): string {
  if (chain.kind === 'evm') return `0x${randomBytes(32).toString('hex')}`;
  if (chain.kind === 'solana') return base58.encode(randomBytes(64));
  return randomBytes(32).toString('hex');
}
