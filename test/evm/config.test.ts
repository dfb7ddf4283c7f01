import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIRMATIONS, resolveEvmChains } from '../../src/chains/evm/chain-config.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { loadRegistry } from '../../src/domain/registry/registry.ts';
import { KEYS, testRegistry } from './support/nodes.ts';
import { registryFile } from './support/orders.ts';

/** Real-chain settings: registry values, EVM_<CHAIN>_* overrides, and clear messages when wrong. */

const ESCROW = '0x5FbDB2315678afecb367f032d93F642f64180aa3';

function configError(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('EVM chain configuration', () => {
  it('with nothing configured, no chain is real (the simulated chain stays the default)', () => {
    expect(resolveEvmChains(loadRegistry(), loadConfig({}))).toEqual([]);
  });

  it('takes the registry values, and environment variables override them', () => {
    const document = testRegistry({ a: 31337, b: 31338 }, 5);
    document.chains[0] = { ...document.chains[0]!, rpc_url: 'http://node-a:8545', registry_address: ESCROW, start_block: 100 } as never;
    const registry = loadRegistry(document);
    expect(resolveEvmChains(registry, loadConfig({}))).toEqual([
      { id: 'evm_a', chainId: 31337, rpcUrl: 'http://node-a:8545', escrowAddress: ESCROW, confirmations: 5, startBlock: 100n },
    ]);
    const config = loadConfig({
      EVM_EVM_A_CONFIRMATIONS: '7',
      EVM_EVM_B_RPC_URL: 'https://node-b.example/v1/key',
      EVM_EVM_B_ESCROW_ADDRESS: ESCROW.toLowerCase(),
      EVM_EVM_B_START_BLOCK: '42',
    });
    expect(resolveEvmChains(registry, config)).toEqual([
      { id: 'evm_a', chainId: 31337, rpcUrl: 'http://node-a:8545', escrowAddress: ESCROW, confirmations: 7, startBlock: 100n },
      { id: 'evm_b', chainId: 31338, rpcUrl: 'https://node-b.example/v1/key', escrowAddress: ESCROW, confirmations: 5, startBlock: 42n },
    ]);
    // Default depth when neither says: by network.
    const shipped = resolveEvmChains(
      loadRegistry(),
      loadConfig({ EVM_ETHEREUM_SEPOLIA_RPC_URL: 'http://localhost:8545', EVM_ETHEREUM_RPC_URL: 'http://localhost:8546' }),
    );
    expect(shipped.map((c) => [c.id, c.confirmations])).toEqual([
      ['ethereum', DEFAULT_CONFIRMATIONS.mainnet],
      ['ethereum_sepolia', DEFAULT_CONFIRMATIONS.testnet],
    ]);
  });

  it('reports every bad variable at once, naming it, without echoing the relayer key', () => {
    const badKey = `${KEYS.relayer.slice(2)}ff`;
    const message = configError(() =>
      loadConfig({
        EVM_ETHEREUM_RPC_URL: 'ws://node:8546',
        EVM_ETHEREUM_CONFIRMATIONS: '0',
        EVM_BASE_START_BLOCK: '-1',
        EVM_BASE_ESCROW_ADDRESS: '0x1234',
        RELAYER_PRIVATE_KEY: badKey,
        WATCHER_POLL_MS: 'often',
      }),
    );
    for (const name of [
      'EVM_ETHEREUM_RPC_URL: must be an http:// or https:// URL',
      'EVM_ETHEREUM_CONFIRMATIONS: must be at least 1',
      'EVM_BASE_START_BLOCK: must be at least 0',
      'EVM_BASE_ESCROW_ADDRESS: must be an EVM address',
      'RELAYER_PRIVATE_KEY: must be a 32-byte private key',
      'WATCHER_POLL_MS: must be an integer',
    ]) {
      expect(message).toContain(name);
    }
    expect(message).not.toContain(badKey);
    expect(configError(() => loadConfig({ WATCHER_POLL_MS: '5000', WATCHER_LEASE_MS: '5000' }))).toContain(
      'WATCHER_LEASE_MS: must exceed WATCHER_POLL_MS',
    );
  });

  it('refuses overrides for chains the registry does not list as EVM, and an RPC URL without an escrow', () => {
    const registry = loadRegistry(testRegistry({ a: 31337, b: 31338 }));
    const message = configError(() =>
      resolveEvmChains(registry, loadConfig({ EVM_POLYGON_RPC_URL: 'http://x:1', EVM_EVM_A_RPC_URL: 'http://node-a:8545' })),
    );
    expect(message).toContain('EVM_POLYGON_*: the registry has no evm chain with id "polygon"');
    expect(message).toContain('EVM_EVM_A_ESCROW_ADDRESS: chain "evm_a" has an RPC URL but no escrow contract');
    expect(() =>
      loadRegistry({
        ...testRegistry({ a: 1, b: 2 }),
        chains: [
          {
            ...testRegistry({ a: 1, b: 2 }).chains[0],
            kind: 'bitcoin',
            chain_id: undefined,
            solver: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
          },
        ],
      }),
    ).toThrow(/confirmations: is only for evm chains/);
  });

  it('the server refuses to start on a bad override, with the message and exit code 2', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      env: {
        ...process.env,
        PORT: '0',
        DATA_DIR: '/nonexistent-never-created',
        ASSETS_FILE: registryFile({ a: 31337, b: 31338 }),
        EVM_EVM_A_CONFIRMATIONS: 'many',
      },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('EVM_EVM_A_CONFIRMATIONS: must be an integer');
  });
});
