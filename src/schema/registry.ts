import type { Asset, Chain } from '../domain/registry/registry.ts';
import { builder } from './builder.ts';

const ChainRef = builder.objectRef<Chain>('Chain').implement({
  description: 'A chain the order book settles on.',
  fields: (t) => ({
    id: t.exposeString('id'),
    name: t.exposeString('name'),
    kind: t.exposeString('kind', { description: 'evm, bitcoin or solana.' }),
    network: t.exposeString('network', { description: 'mainnet or testnet.' }),
    chainId: t.int({ nullable: true, resolve: (c) => c.chain_id ?? null }),
    solver: t.exposeString('solver', { description: 'The solver\'s address on this chain.' }),
    registryAddress: t.string({ nullable: true, resolve: (c) => c.registry_address ?? null }),
    sourceTimelockSecs: t.int({ resolve: (c) => c.source_timelock_secs }),
    destinationTimelockSecs: t.int({ resolve: (c) => c.destination_timelock_secs }),
  }),
});

const AssetRef = builder.objectRef<Asset>('Asset').implement({
  description: 'A token on a chain; amounts in its base units.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'chain:token' }),
    chain: t.exposeString('chain'),
    symbol: t.exposeString('symbol'),
    decimals: t.exposeInt('decimals'),
    tokenAddress: t.string({ resolve: (a) => a.token_address }),
    minAmount: t.string({ resolve: (a) => a.min_amount }),
    maxAmount: t.string({ resolve: (a) => a.max_amount }),
    priceUsd: t.string({ resolve: (a) => a.price_usd }),
  }),
});

builder.queryFields((t) => ({
  chains: t.field({ type: [ChainRef], resolve: (_root, _args, ctx) => [...ctx.registry.chains] }),
  assets: t.field({ type: [AssetRef], resolve: (_root, _args, ctx) => [...ctx.registry.assets] }),
}));
