import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isValidAddress } from '../src/domain/addresses.ts';
import { isAmountString, isPositiveDecimalString } from '../src/domain/amounts.ts';
import { StaticPriceSource } from '../src/domain/prices.ts';
import { DEFAULT_REGISTRY_FILE, RegistryError, loadRegistry, type Registry } from '../src/domain/registry/registry.ts';

const MAINNET_CHAINS = ['ethereum', 'arbitrum', 'base', 'avalanche', 'bitcoin', 'solana'];
const TESTNET_CHAINS = ['ethereum_sepolia', 'arbitrum_sepolia', 'base_sepolia', 'avalanche_fuji', 'bitcoin_testnet', 'solana_devnet'];

/** The default file as plain data, to derive broken variants from. */
function defaultDocument(): { fee_bips: number; chains: Record<string, unknown>[]; assets: Record<string, unknown>[] } {
  return JSON.parse(readFileSync(DEFAULT_REGISTRY_FILE, 'utf8'));
}

function problemsOf(source: string | object): readonly string[] {
  try {
    loadRegistry(source);
  } catch (error) {
    if (error instanceof RegistryError) return error.problems;
    throw error;
  }
  throw new Error('expected a RegistryError');
}

describe('the default registry', () => {
  const registry: Registry = loadRegistry();

  it('holds the mainnets and their testnets', () => {
    expect(registry.chains.map((c) => c.id)).toEqual([...MAINNET_CHAINS, ...TESTNET_CHAINS]);
    for (const id of MAINNET_CHAINS) expect(registry.chain(id)?.network).toBe('mainnet');
    for (const id of TESTNET_CHAINS) expect(registry.chain(id)?.network).toBe('testnet');
    expect(registry.feeBips).toBe(30);
    expect(registry.chain('ethereum')).toMatchObject({ kind: 'evm', chain_id: 1 });
    expect(registry.chain('arbitrum_sepolia')).toMatchObject({ kind: 'evm', chain_id: 421614 });
    expect(registry.chain('bitcoin')).toMatchObject({ kind: 'bitcoin', registry_address: null });
    expect(registry.chain('bitcoin')).not.toHaveProperty('chain_id');
    expect(registry.chain('nope')).toBeUndefined();
  });

  it('lists the contract assets with real mainnet contracts', () => {
    const ids = registry.assets.map((a) => a.id);
    for (const id of [
      'bitcoin:btc',
      'ethereum:wbtc',
      'ethereum:usdc',
      'ethereum:usdt',
      'ethereum:eth',
      'arbitrum:wbtc',
      'arbitrum:usdc',
      'arbitrum:eth',
      'base:cbbtc',
      'base:usdc',
      'base:eth',
      'avalanche:avax',
      'avalanche:usdc',
      'avalanche:btcb',
      'solana:sol',
      'solana:usdc',
      'bitcoin_testnet:btc',
      'ethereum_sepolia:wbtc',
      'ethereum_sepolia:usdc',
      'ethereum_sepolia:eth',
      'base_sepolia:cbbtc',
      'avalanche_fuji:avax',
      'solana_devnet:sol',
    ]) {
      expect(ids).toContain(id);
    }
    expect(registry.asset('ethereum:wbtc')).toMatchObject({
      symbol: 'WBTC',
      decimals: 8,
      token_address: '0x2260FAC5E5542a773Aa44fBCfeDf7C193bc2C599',
    });
    expect(registry.asset('ethereum:usdc')).toMatchObject({ decimals: 6, token_address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48' });
    expect(registry.asset('ethereum:usdt')).toMatchObject({ decimals: 6, token_address: '0xdAC17F958D2ee523a2206206994597C13D831ec7' });
    expect(registry.asset('base:cbbtc')).toMatchObject({
      symbol: 'cbBTC',
      decimals: 8,
      token_address: '0xcbB7C0000aB88B473b1f5aFd9ef808440eed33Bf',
    });
    expect(registry.asset('avalanche:btcb')).toMatchObject({ symbol: 'BTC.b', decimals: 8 });
    expect(registry.asset('solana:usdc')).toMatchObject({ decimals: 6, token_address: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' });
    expect(registry.asset('ethereum:eth')).toMatchObject({ decimals: 18, token_address: '0x0000000000000000000000000000000000000000' });
    expect(registry.asset('bitcoin:btc')).toMatchObject({ decimals: 8, token_address: 'primary' });
    expect(registry.asset('solana:sol')).toMatchObject({ decimals: 9, token_address: 'primary' });
    expect(registry.asset('bitcoin:btc')?.price_usd).toBe('64250.12');
    expect(registry.asset('bitcoin:doge')).toBeUndefined();
  });

  it('has valid addresses for every chain and asset (checked with the address validator itself)', () => {
    for (const chain of registry.chains) {
      expect(isValidAddress(chain, chain.solver), `${chain.id} solver`).toBe(true);
      if (chain.registry_address !== null) expect(isValidAddress(chain, chain.registry_address), `${chain.id} registry`).toBe(true);
      expect(chain.source_timelock_secs).toBeGreaterThan(chain.destination_timelock_secs);
    }
    expect(registry.chain('bitcoin')?.solver).toMatch(/^bc1/);
    expect(registry.chain('bitcoin_testnet')?.solver).toMatch(/^tb1/);
    for (const asset of registry.assets) {
      const chain = registry.chain(asset.chain);
      expect(chain, asset.id).toBeDefined();
      expect(asset.id.startsWith(`${asset.chain}:`)).toBe(true);
      if (asset.token_address !== 'primary') expect(isValidAddress(chain!, asset.token_address), asset.id).toBe(true);
      else expect(chain!.kind).not.toBe('evm');
      expect(isAmountString(asset.min_amount) && isAmountString(asset.max_amount), asset.id).toBe(true);
      expect(BigInt(asset.min_amount) <= BigInt(asset.max_amount)).toBe(true);
      expect(isPositiveDecimalString(asset.price_usd), asset.id).toBe(true);
    }
  });

  it('pairs every mainnet asset with a testnet twin of the same symbol', () => {
    const testnetSymbols = new Set(registry.assets.filter((a) => registry.chain(a.chain)?.network === 'testnet').map((a) => a.symbol));
    for (const symbol of ['BTC', 'WBTC', 'cbBTC', 'BTC.b', 'USDC', 'ETH', 'AVAX', 'SOL']) expect(testnetSymbols).toContain(symbol);
  });

  it('serves static prices from the registry', async () => {
    const prices = new StaticPriceSource(registry);
    expect(await prices.priceUsd(registry.asset('bitcoin:btc')!)).toBe('64250.12');
    await expect(prices.priceUsd({ ...registry.asset('bitcoin:btc')!, id: 'bitcoin:doge' })).rejects.toThrow('not a listed asset');
  });
});

describe('loadRegistry from a file (ASSETS_FILE)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'registry-test-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('loads a valid file', () => {
    const document = defaultDocument();
    document.fee_bips = 25;
    document.chains = document.chains.filter((c) => c.id === 'bitcoin' || c.id === 'ethereum');
    document.assets = document.assets.filter((a) => a.chain === 'bitcoin' || a.chain === 'ethereum');
    const file = join(dir, 'assets.json');
    writeFileSync(file, JSON.stringify(document));
    const registry = loadRegistry(file);
    expect(registry.feeBips).toBe(25);
    expect(registry.chains.map((c) => c.id)).toEqual(['ethereum', 'bitcoin']);
    expect(registry.asset('base:usdc')).toBeUndefined();
  });

  it('names a missing file and bad JSON', () => {
    const missing = join(dir, 'missing.json');
    expect(() => loadRegistry(missing)).toThrow(`Invalid asset registry (${missing})`);
    expect(problemsOf(missing)[0]).toMatch(/^cannot read the file/);
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{"fee_bips": 30,');
    expect(problemsOf(broken)[0]).toMatch(/^not valid JSON/);
  });

  it('reports the problems of a bad file with their paths', () => {
    const document = defaultDocument();
    document.chains[4]!.solver = 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx'; // bitcoin (mainnet) gets a testnet address
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify(document));
    expect(() => loadRegistry(file)).toThrow(/chains\[4\]\.solver: must be a valid bitcoin mainnet address/);
  });
});

describe('loadRegistry from an object', () => {
  const evmChain = {
    id: 'ethereum',
    name: 'Ethereum',
    kind: 'evm',
    network: 'mainnet',
    chain_id: 1,
    solver: '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed',
  };
  const usdc = {
    id: 'ethereum:usdc',
    chain: 'ethereum',
    symbol: 'USDC',
    decimals: 6,
    token_address: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48',
    min_amount: '1000000',
    max_amount: '1000000000000',
    price_usd: '1.00',
  };

  it('fills defaults and normalises addresses and prices', () => {
    const registry = loadRegistry({ fee_bips: 0, chains: [evmChain], assets: [usdc] });
    expect(registry.asset('ethereum:usdc')?.price_usd).toBe('1');
    expect(registry.chain('ethereum')).toEqual({
      ...evmChain,
      solver: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      registry_address: null,
      source_timelock_secs: 86400,
      destination_timelock_secs: 43200,
    });
    expect(registry.asset('ethereum:usdc')?.token_address).toBe('0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48');
    expect(Object.isFrozen(registry.chains)).toBe(true);
  });

  it('reports every problem at once, each with its path', () => {
    const problems = problemsOf({
      fee_bips: 10_000,
      chains: [
        { ...evmChain, chain_id: undefined, solver: '0x5aaeb6053F3E94C9b9A09f33669435E7Ef1BeAed' },
        { ...evmChain, id: 'ethereum', chain_id: 1 },
        {
          id: 'bitcoin',
          name: 'Bitcoin',
          kind: 'bitcoin',
          network: 'mainnet',
          chain_id: 0,
          solver: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
          colour: 'orange',
        },
        { id: 'Solana', name: '', kind: 'solana', network: 'devnet', solver: 'x' },
      ],
      assets: [
        { ...usdc, id: 'base:usdc', min_amount: '5', max_amount: '4' },
        { ...usdc, chain: 'optimism', id: 'optimism:usdc' },
        { ...usdc, token_address: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', price_usd: '1e3', decimals: 6.5 },
        { ...usdc, id: 'bitcoin:wbtc', chain: 'bitcoin', token_address: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48' },
        { ...usdc, min_amount: '01', max_amount: (2n ** 256n).toString() },
      ],
    });
    const expected = [
      'fee_bips: must be below 10000',
      'chains[0].chain_id: is required for an evm chain',
      'chains[0].solver: must be a valid evm mainnet address',
      'chains[1].id: duplicate chain id "ethereum"',
      'chains[2].chain_id: must be positive',
      'chains[2]: Unrecognized key: "colour"',
      'chains[3].id: must be lowercase letters, digits, "_" or "-"',
      'chains[3].name: must be a non-empty string without surrounding spaces',
      'chains[3].network: Invalid option',
      'assets[0].id: must be "ethereum:<token>"',
      'assets[0].min_amount: must not exceed max_amount (4)',
      'assets[1].chain: unknown chain "optimism"',
      'assets[2].decimals: must be an integer',
      'assets[2].price_usd: must be a positive decimal string',
      'assets[2].token_address: must be a valid evm mainnet address',
      'assets[3].token_address: must be "primary" on a bitcoin chain',
      'assets[4].min_amount: must be a positive integer string in base units',
      'assets[4].max_amount: must be a positive integer string in base units',
      'assets[4].id: duplicate asset id "ethereum:usdc"',
    ];
    for (const line of expected)
      expect(
        problems.some((p) => p.startsWith(line)),
        `${line}\n in\n${problems.join('\n')}`,
      ).toBe(true);
    // The error message carries them all, one per line.
    expect(() => loadRegistry({ fee_bips: 10_000, chains: [evmChain], assets: [{ ...usdc, price_usd: '0' }] })).toThrow(
      /Invalid asset registry \(object\):\n {2}fee_bips: must be below 10000\n {2}assets\[0\]\.price_usd: /,
    );
  });

  it('does not report the assets of a broken chain as orphans', () => {
    const problems = problemsOf({ fee_bips: 30, chains: [{ ...evmChain, kind: 'cosmos' }], assets: [usdc] });
    expect(problems).toEqual(['chains[0].kind: Invalid option: expected one of "evm"|"bitcoin"|"solana"']);
  });

  it('refuses a testnet address on a mainnet chain, and a mainnet one on testnet', () => {
    const bitcoin = {
      id: 'bitcoin',
      name: 'Bitcoin',
      kind: 'bitcoin',
      network: 'mainnet',
      solver: 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx',
    };
    const testnet = { ...bitcoin, id: 'bitcoin_testnet', network: 'testnet', solver: '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2' };
    const btc = { ...usdc, id: 'bitcoin:btc', chain: 'bitcoin', decimals: 8, token_address: 'primary' };
    expect(problemsOf({ fee_bips: 30, chains: [bitcoin, testnet], assets: [btc] })).toEqual([
      'chains[0].solver: must be a valid bitcoin mainnet address, got "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx"',
      'chains[1].solver: must be a valid bitcoin testnet address, got "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2"',
    ]);
  });

  it('refuses timelocks that would let a user take both sides', () => {
    const problems = problemsOf({
      fee_bips: 30,
      chains: [evmChain, { ...evmChain, id: 'base', chain_id: 8453, source_timelock_secs: 3600, destination_timelock_secs: 90_000 }],
      assets: [usdc],
    });
    expect(problems).toEqual([
      'chains[0].source_timelock_secs: must exceed every destination_timelock_secs on mainnet (the longest is 90000)',
      'chains[1].source_timelock_secs: must exceed every destination_timelock_secs on mainnet (the longest is 90000)',
    ]);
  });

  it('refuses a document that is not a registry', () => {
    expect(problemsOf([])).toEqual(['(root): Invalid input: expected object, received array']);
    expect(problemsOf({ chains: [], assets: [] })).toEqual([
      'fee_bips: Invalid input: expected number, received undefined',
      'chains: must list at least one chain',
      'assets: must list at least one asset',
    ]);
  });
});
