import type { Asset, Chain } from '../domain/registry/registry.ts';
import { builder } from './builder.ts';

const ChainRef = builder.objectRef<Chain>('Chain').implement({
  description: 'A chain the order book settles on.',
  fields: (t) => ({
    id: t.exposeString('id', {
      description: 'Registry id of the chain, e.g. `ethereum` or `bitcoin_testnet`; the first part of an asset id.',
    }),
    name: t.exposeString('name', { description: 'Human-readable name.' }),
    kind: t.exposeString('kind', { description: 'evm, bitcoin or solana.' }),
    network: t.exposeString('network', { description: 'mainnet or testnet.' }),
    chainId: t.int({
      description: 'EVM chain id; null on chains that have none (Bitcoin, Solana).',
      nullable: true,
      resolve: (c) => c.chain_id ?? null,
    }),
    solver: t.exposeString('solver', { description: "The solver's address on this chain." }),
    registryAddress: t.string({
      description: 'The escrow contract on this chain, when it has one.',
      nullable: true,
      resolve: (c) => c.registry_address ?? null,
    }),
    sourceTimelockSecs: t.int({
      description: "Seconds from order creation to the source escrow's `cancelAfter` when this chain is the source.",
      resolve: (c) => c.source_timelock_secs,
    }),
    destinationTimelockSecs: t.int({
      description:
        "Seconds from order creation to the destination escrow's `cancelAfter` when this chain is the destination (shorter than any source timelock).",
      resolve: (c) => c.destination_timelock_secs,
    }),
  }),
});

const AssetRef = builder.objectRef<Asset>('Asset').implement({
  description: 'A token on a chain; amounts in its base units.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'chain:token' }),
    chain: t.exposeString('chain', { description: "The chain's registry id." }),
    symbol: t.exposeString('symbol', { description: 'Ticker, e.g. `WBTC`.' }),
    decimals: t.exposeInt('decimals', { description: 'Decimals between the base unit and one whole token.' }),
    tokenAddress: t.string({
      description: "The token's address on its chain (`native` for the chain's own coin).",
      resolve: (a) => a.token_address,
    }),
    minAmount: t.string({ description: 'Smallest amount a quote accepts, base units, decimal string.', resolve: (a) => a.min_amount }),
    maxAmount: t.string({ description: 'Largest amount a quote accepts, base units, decimal string.', resolve: (a) => a.max_amount }),
    priceUsd: t.string({ description: 'USD price of one whole token used for quotes, decimal string.', resolve: (a) => a.price_usd }),
  }),
});

builder.queryFields((t) => ({
  chains: t.field({
    description: 'Every chain in the registry (`GET /chains`).',
    type: [ChainRef],
    resolve: (_root, _args, ctx) => [...ctx.registry.chains],
  }),
  assets: t.field({
    description: 'Every asset in the registry (`GET /assets`).',
    type: [AssetRef],
    resolve: (_root, _args, ctx) => [...ctx.registry.assets],
  }),
}));
