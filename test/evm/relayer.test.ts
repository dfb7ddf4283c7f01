import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { createPublicClient, http, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvmChainSettings } from '../../src/chains/evm/chain-config.ts';
import { escrowAbi } from '../../src/chains/evm/escrow-abi.ts';
import { TransientChainError } from '../../src/relayer/chain-adapter.ts';
import { EvmClaimAdapter } from '../../src/relayer/evm-adapter.ts';
import { ACCOUNTS, KEYS, cancelEscrow, createEscrow, freePort, startNode, type LocalNode } from './support/nodes.ts';
import { newSecret } from './support/orders.ts';

/** The EVM claim adapter against one Hardhat node that mines a block per transaction. */

const logLines: string[] = [];
const logger = pino(
  { level: 'trace' },
  new Writable({
    write(chunk, _enc, done) {
      logLines.push(String(chunk));
      done();
    },
  }),
);
/** Every secret used and every error message seen, checked at the end. */
const secrets: string[] = [];
const messages: string[] = [];

let node: LocalNode;
let escrow: Hex;
let settings: EvmChainSettings;

beforeAll(async () => {
  node = await startNode(31338);
  escrow = await node.deployEscrow();
  settings = { id: 'evm_b', chainId: 31338, rpcUrl: node.url, escrowAddress: escrow, confirmations: 2, startBlock: 0n };
});
afterAll(() => node?.stop());

/** A fresh adapter, as a restarted process would have. */
const adapter = (privateKey: Hex | null = KEYS.relayer) =>
  new EvmClaimAdapter({ chains: [{ settings, client: node.client }], privateKey: privateKey ?? undefined, logger });

/** A destination escrow from the solver to the user, open for `lifetime` seconds of chain time. */
async function openEscrow(lifetime = 3600) {
  const { secret, commitmentHash } = newSecret();
  secrets.push(secret);
  const swapId = randomBytes(32).toString('hex');
  const latest = await node.client.getBlock();
  const receipt = await createEscrow(node, escrow, 'solver', {
    swap_id: swapId,
    token_address: '0x0000000000000000000000000000000000000000',
    creator: ACCOUNTS.solver.address,
    recipient: ACCOUNTS.user.address,
    amount: '1000000',
    commitment_hash: commitmentHash,
    cancel_after: Number(latest.timestamp) + lifetime,
  });
  const submission = { chain: 'evm_b', swapId, secret, registryAddress: escrow, createBlockNumber: receipt.blockNumber };
  return { swapId, secret, submission };
}

const relayerNonce = (blockTag: 'latest' | 'pending' = 'latest') =>
  node.client.getTransactionCount({ address: ACCOUNTS.relayer.address, blockTag });

async function failure(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  if (!error) throw new Error('expected a failure');
  messages.push(error.message);
  return error;
}

describe('EVM claim adapter', () => {
  it('claims once: a repeat, also from a fresh adapter after a restart, returns the same transaction', async () => {
    const { submission, secret } = await openEscrow();
    const nonce = await relayerNonce();
    const first = adapter();
    const { txHash } = await first.submitClaim(submission);
    const receipt = await node.client.waitForTransactionReceipt({ hash: txHash as Hex, pollingInterval: 50 });
    expect(receipt.status).toBe('success');
    expect(await first.submitClaim(submission)).toEqual({ txHash });
    // A new process (the claim row still says queued: the crash came before recording it).
    expect(await adapter().submitClaim(submission)).toEqual({ txHash });
    // Found also when the claim is far below the head (searched in bounded getLogs ranges).
    await node.rpc('hardhat_mine', ['0x3a98']);
    expect(await adapter().submitClaim(submission)).toEqual({ txHash });
    expect(await relayerNonce()).toBe(nonce + 1);
    const tx = await node.client.getTransaction({ hash: txHash as Hex });
    expect(tx.input).toContain(secret); // the claim did carry the secret, on chain only
  });

  it('finds its own claim still waiting in the pending block after a restart instead of sending another', async () => {
    const { submission } = await openEscrow();
    await node.rpc('evm_setAutomine', [false]);
    try {
      const nonce = await relayerNonce();
      const { txHash } = await adapter().submitClaim(submission);
      expect(await adapter().submitClaim(submission)).toEqual({ txHash });
      expect(await relayerNonce('pending')).toBe(nonce + 1);
      await node.mine();
      expect((await node.client.getTransactionReceipt({ hash: txHash as Hex })).status).toBe('success');
    } finally {
      await node.rpc('evm_setAutomine', [true]);
    }
  });

  it('reports a claim confirmed only once it has the confirmations', async () => {
    const { submission } = await openEscrow();
    const claims = adapter();
    const { txHash } = await claims.submitClaim(submission);
    await node.client.waitForTransactionReceipt({ hash: txHash as Hex, pollingInterval: 50 });
    expect(await claims.transactionState('evm_b', txHash)).toEqual({ state: 'pending' });
    await node.mine();
    expect(await claims.transactionState('evm_b', txHash)).toEqual({ state: 'confirmed' });
    expect(await claims.transactionState('evm_b', `0x${'ab'.repeat(32)}`)).toEqual({ state: 'pending' });
  });

  it('refuses for good, sending nothing, an escrow expired on chain or cancelled', async () => {
    const nonce = await relayerNonce();
    const expired = await openEscrow(60);
    await node.increaseTime(61);
    const error = await failure(adapter().submitClaim(expired.submission));
    expect(error).not.toBeInstanceOf(TransientChainError);
    expect(error.message).toMatch(/escrow expired/);

    await cancelEscrow(node, escrow, 'solver', expired.swapId);
    const cancelled = await failure(adapter().submitClaim(expired.submission));
    expect(cancelled).not.toBeInstanceOf(TransientChainError);
    expect(cancelled.message).toBe('escrow cancelled');
    expect(await relayerNonce()).toBe(nonce);
  });

  it('fails before sending a claim that would revert, with the contract reason', async () => {
    const { submission } = await openEscrow();
    const nonce = await relayerNonce();
    const wrongSecret = randomBytes(32).toString('hex');
    secrets.push(wrongSecret);
    const error = await failure(adapter().submitClaim({ ...submission, secret: wrongSecret }));
    expect(error).not.toBeInstanceOf(TransientChainError);
    expect(error.message).toBe('reverted: wrong secret');
    expect(await relayerNonce()).toBe(nonce);
  });

  it('reports a mined claim that reverted, or ran out of gas, as failed with that reason', async () => {
    const { swapId, secret } = await openEscrow();
    const relayer = node.wallet('relayer');
    const send = (secretHex: string, gas: bigint) =>
      relayer.writeContract({ address: escrow, abi: escrowAbi, functionName: 'claim', args: [`0x${swapId}`, `0x${secretHex}`], gas });
    const claims = adapter();

    const outOfGas = await send(secret, 30_000n);
    await node.client.waitForTransactionReceipt({ hash: outOfGas, pollingInterval: 50 });
    expect(await claims.transactionState('evm_b', outOfGas)).toEqual({ state: 'failed', reason: 'out of gas' });

    const reverted = await send(randomBytes(32).toString('hex'), 200_000n);
    await node.client.waitForTransactionReceipt({ hash: reverted, pollingInterval: 50 });
    expect(await claims.transactionState('evm_b', reverted)).toEqual({ state: 'failed', reason: 'reverted' });
  });

  it('retries later when the RPC node is unreachable, and fails for good without a relayer key', async () => {
    const { submission } = await openEscrow();
    const dead = `http://127.0.0.1:${await freePort()}`;
    const unreachable = new EvmClaimAdapter({
      chains: [{ settings: { ...settings, rpcUrl: dead }, client: createPublicClient({ transport: http(dead, { retryCount: 0 }) }) }],
      privateKey: KEYS.relayer,
      logger,
    });
    const error = await failure(unreachable.submitClaim(submission));
    expect(error).toBeInstanceOf(TransientChainError);
    expect((await unreachable.health()).evm_b).toMatchObject({ adapter: 'evm', ok: false });

    const keyless = await failure(adapter(null).submitClaim(submission));
    expect(keyless).not.toBeInstanceOf(TransientChainError);
    expect(keyless.message).toMatch(/RELAYER_PRIVATE_KEY is not set/);
  });

  it('never puts a secret or the relayer key in a log line or an error message', () => {
    expect(messages.length).toBeGreaterThan(4);
    const text = [...logLines, ...messages].join('\n').toLowerCase();
    for (const secret of secrets) expect(text).not.toContain(secret);
    expect(text).not.toContain(KEYS.relayer.slice(2).toLowerCase());
  });
});
