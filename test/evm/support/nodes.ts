import { spawn, type ChildProcess } from 'node:child_process';
import { freePort, listeningPorts } from '../../support/server-process.ts';
import { fileURLToPath } from 'node:url';
import { createPublicClient, createWalletClient, defineChain, http, type Account, type Hex, type PublicClient, toHex } from 'viem';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { escrowAbi } from '../../../src/chains/evm/escrow-abi.ts';
import { loadTestEscrow } from '../build-escrow.ts';

const HARDHAT = fileURLToPath(new URL('../../../node_modules/hardhat/internal/cli/bootstrap.js', import.meta.url));
const CONFIG = fileURLToPath(new URL('../hardhat.config.cjs', import.meta.url));

/** Hardhat's development mnemonic: its first accounts are funded on every local node. */
const HARDHAT_MNEMONIC = 'test test test test test test test test test test test junk';
const ROLES = { deployer: 0, solver: 1, relayer: 2, user: 3 } as const;
export const KEYS = Object.fromEntries(
  Object.entries(ROLES).map(([role, index]) => [
    role,
    toHex(mnemonicToAccount(HARDHAT_MNEMONIC, { addressIndex: index }).getHdKey().privateKey!),
  ]),
) as Record<keyof typeof ROLES, Hex>;
export const ACCOUNTS = Object.fromEntries(Object.entries(KEYS).map(([role, key]) => [role, privateKeyToAccount(key)])) as Record<
  keyof typeof ROLES,
  Account
>;

/** A free TCP port: the OS picks one, we release it for the child to take. */
export { freePort };

export interface LocalNode {
  chainId: number;
  url: string;
  client: PublicClient;
  /** A JSON-RPC call (Hardhat's evm_* methods included). */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** Mines `count` empty blocks. */
  mine(count?: number): Promise<void>;
  /** Moves the chain's clock forward and mines a block at the new time. */
  increaseTime(seconds: number): Promise<void>;
  wallet(role: keyof typeof KEYS): ReturnType<typeof walletFor>;
  deployEscrow(): Promise<Hex>;
  stop(): Promise<void>;
}

function walletFor(url: string, chainId: number, account: Account) {
  const chain = defineChain({
    id: chainId,
    name: `local ${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  });
  return createWalletClient({ account, chain, transport: http(url) });
}

/**
 * A Hardhat 2 node as a child process. `blockMs` > 0 also mines a block every blockMs (besides one
 * per transaction), so confirmations accrue as on a real chain; 0 leaves mining to the test.
 */
export async function startNode(chainId: number, options: { blockMs?: number } = {}): Promise<LocalNode> {
  // The port is picked here (Hardhat prints no port of its own choosing) and could be taken by another
  // test's server before the node binds it: then the node exits, and it starts again on another port.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startNodeOn(await freePort(), chainId, options);
    } catch (error) {
      if (attempt >= 3 || !(error instanceof PortTaken)) throw error;
    }
  }
}

class PortTaken extends Error {}

async function startNodeOn(port: number, chainId: number, options: { blockMs?: number }): Promise<LocalNode> {
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  const child: ChildProcess = spawn(
    process.execPath,
    [HARDHAT, 'node', '--hostname', '127.0.0.1', '--port', String(port), '--config', CONFIG],
    {
      env: {
        ...process.env,
        EVM_TEST_CHAIN_ID: String(chainId),
        EVM_TEST_BLOCK_MS: String(options.blockMs ?? 0),
        HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true',
        CI: 'true',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  let id = 0;
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    });
    const body = (await response.json()) as { result?: T; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result as T;
  };
  try {
    const started = Date.now();
    for (;;) {
      if (child.exitCode !== null) {
        const Failure = /EADDRINUSE/.test(output) ? PortTaken : Error;
        throw new Failure(`hardhat node exited:\n${output}`);
      }
      // Asked only once the node itself holds the port: before that, another test's node could answer.
      try {
        if (listeningPorts(child.pid!).includes(port) && Number(await rpc<string>('eth_chainId')) === chainId) break;
      } catch {
        // not answering yet
      }
      if (Date.now() - started > 60_000) throw new Error(`hardhat node did not start:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (error) {
    // A node that did not start is not left running.
    if (child.exitCode === null) child.kill('SIGKILL');
    await exited;
    throw error;
  }

  const client = createPublicClient({ transport: http(url), pollingInterval: 50 });
  const node: LocalNode = {
    chainId,
    url,
    client,
    rpc,
    async mine(count = 1) {
      for (let i = 0; i < count; i++) await rpc('evm_mine');
    },
    async increaseTime(seconds) {
      await rpc('evm_increaseTime', [seconds]);
      await rpc('evm_mine');
    },
    wallet: (role) => walletFor(url, chainId, ACCOUNTS[role]),
    async deployEscrow() {
      const { abi, bytecode } = loadTestEscrow();
      const hash = await node.wallet('deployer').deployContract({ abi, bytecode });
      const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      return receipt.contractAddress!;
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
  return node;
}

/** An intent as the REST API returns it. */
export interface IntentView {
  swap_id: string;
  token_address: string;
  creator: string;
  recipient: string;
  amount: string;
  commitment_hash: string;
  cancel_after: number;
}

/** Creates the escrow an intent describes, from `role`; `amount` can be changed to fake a wrong one. */
export async function createEscrow(
  node: LocalNode,
  escrow: Hex,
  role: keyof typeof KEYS,
  intent: IntentView,
  amount = BigInt(intent.amount),
) {
  const hash = await node.wallet(role).writeContract({
    address: escrow,
    abi: escrowAbi,
    functionName: 'create',
    args: [
      `0x${intent.swap_id}`,
      intent.recipient as Hex,
      intent.token_address as Hex,
      amount,
      `0x${intent.commitment_hash}`,
      BigInt(intent.cancel_after),
    ],
    value: amount,
  });
  return node.client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
}

export async function claimEscrow(node: LocalNode, escrow: Hex, role: keyof typeof KEYS, swapId: string, secret: string) {
  const hash = await node.wallet(role).writeContract({
    address: escrow,
    abi: escrowAbi,
    functionName: 'claim',
    args: [`0x${swapId}`, `0x${secret}`],
  });
  return node.client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
}

export async function cancelEscrow(node: LocalNode, escrow: Hex, role: keyof typeof KEYS, swapId: string) {
  const hash = await node.wallet(role).writeContract({ address: escrow, abi: escrowAbi, functionName: 'cancel', args: [`0x${swapId}`] });
  return node.client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
}

/** A registry with two local EVM testnets and their native coins; the solver is Hardhat's account #1. */
export function testRegistry(chainIds: { a: number; b: number }, confirmations = 2) {
  const solver = ACCOUNTS.solver.address;
  const chain = (id: string, chainId: number) => ({
    id,
    name: `Local ${id}`,
    kind: 'evm',
    network: 'testnet',
    chain_id: chainId,
    solver,
    registry_address: null,
    confirmations,
    source_timelock_secs: 86_400,
    destination_timelock_secs: 43_200,
  });
  const asset = (chainId: string) => ({
    id: `${chainId}:eth`,
    chain: chainId,
    symbol: 'ETH',
    decimals: 18,
    token_address: '0x0000000000000000000000000000000000000000',
    min_amount: '1000000000000000',
    max_amount: '100000000000000000000',
    price_usd: '2000',
  });
  return { fee_bips: 30, chains: [chain('evm_a', chainIds.a), chain('evm_b', chainIds.b)], assets: [asset('evm_a'), asset('evm_b')] };
}
