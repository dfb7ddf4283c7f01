import { Writable } from 'node:stream';
import pino from 'pino';
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvmChainSettings } from '../../src/chains/evm/chain-config.ts';
import { EvmWatcher } from '../../src/chains/evm/watcher.ts';
import { recordEscrowEvent } from '../../src/domain/escrow-events.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { createEscrow, startNode, type LocalNode } from './support/nodes.ts';
import { placeOrder, registryFile } from './support/orders.ts';

/**
 * The watcher in-process against one Hardhat node that mines only when told (blocks per
 * transaction and evm_mine), so confirmations and reorgs are under the test's control.
 */

const CONFIRMATIONS = 3;
const logLines: string[] = [];
const logger = pino(
  { level: 'debug' },
  new Writable({
    write(chunk, _enc, done) {
      logLines.push(String(chunk));
      done();
    },
  }),
);

let node: LocalNode;
let escrow: Hex;
let t: TestApp;
let settings: EvmChainSettings;

beforeAll(async () => {
  node = await startNode(31337);
  escrow = await node.deployEscrow();
  t = await createTestApp({ env: { ASSETS_FILE: registryFile({ a: 31337, b: 31338 }, CONFIRMATIONS) } });
  settings = {
    id: 'evm_a',
    chainId: 31337,
    rpcUrl: node.url,
    escrowAddress: escrow,
    confirmations: CONFIRMATIONS,
    startBlock: 0n,
  };
});
afterAll(async () => {
  await t?.close();
  await node?.stop();
});

function watcher(owner: string, leaseMs = 30_000): EvmWatcher {
  return new EvmWatcher({
    chain: settings,
    client: node.client,
    prisma: t.db.prisma,
    logger,
    ingest: (swapId, event) => recordEscrowEvent(t.runtime.deps, swapId, event),
    owner,
    pollMs: 50,
    leaseMs,
  });
}

const call = (method: string, path: string, body?: unknown) => t.rest(method, path, body);
const orderOf = async (orderId: string) => (await t.rest('GET', `/orders/${orderId}`)).body.result;
const cursor = async () => (await t.db.prisma.chainWatcher.findUniqueOrThrow({ where: { chain: 'evm_a' } })).nextBlock;

describe('EVM watcher', () => {
  const main = () => watcher('main');

  it('ingests a create only once it has the confirmations, and ignores a log a reorg removed before then', async () => {
    const w = main();
    const { order, orderId } = await placeOrder(call);
    const snapshot = await node.rpc<string>('evm_snapshot');
    const orphan = await createEscrow(node, escrow, 'user', order.source_intent);
    await node.mine(CONFIRMATIONS - 2); // one short of the confirmation depth
    await w.tick();
    expect((await orderOf(orderId)).status).toBe('pending');
    expect(await cursor()).toBeLessThanOrEqual(orphan.blockNumber);

    // The block with the create is reorganised away before it was confirmed.
    await node.rpc('evm_revert', [snapshot]);
    await node.mine(CONFIRMATIONS + 2);
    await w.tick();
    expect((await orderOf(orderId)).status).toBe('pending');
    expect(await cursor()).toBeGreaterThan(orphan.blockNumber);

    // The user creates the escrow again on the surviving chain: that one counts.
    const real = await createEscrow(node, escrow, 'user', order.source_intent);
    await node.mine(CONFIRMATIONS - 1);
    await w.tick();
    const after = await orderOf(orderId);
    expect(after.status).toBe('source_created');
    expect(after.source_intent.create_tx_hash).toBe(real.transactionHash);
    expect(after.source_intent.create_block_number).toBe(Number(real.blockNumber));
    const block = await node.client.getBlock({ blockNumber: real.blockNumber });
    expect(after.source_intent.create_timestamp).toBe(new Date(Number(block.timestamp) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'));
  });

  it('ignores an escrow whose amount does not match its swap id: the order stays pending', async () => {
    const w = main();
    const { order, orderId } = await placeOrder(call);
    const short = await createEscrow(node, escrow, 'user', order.source_intent, BigInt(order.source_intent.amount) - 1n);
    await node.mine(CONFIRMATIONS);
    await w.tick();
    expect(await cursor()).toBeGreaterThan(short.blockNumber);
    const after = await orderOf(orderId);
    expect(after.status).toBe('pending');
    expect(after.source_intent.create_tx_hash).toBeNull();
    expect(logLines.some((l) => l.includes('does not match its swap id') && l.includes(order.source_intent.swap_id))).toBe(true);
  });

  it('re-reading after a crash before the cursor was saved applies nothing twice', async () => {
    const w = main();
    const { order, orderId } = await placeOrder(call);
    await createEscrow(node, escrow, 'user', order.source_intent);
    await node.mine(CONFIRMATIONS);
    await w.tick();
    const before = await orderOf(orderId);
    expect(before.status).toBe('source_created');

    // As if the process died after ingesting but before saving the cursor: everything is read again.
    await t.db.prisma.chainWatcher.update({
      where: { chain: 'evm_a' },
      data: { nextBlock: 0n, lastBlockNumber: null, lastBlockHash: null },
    });
    const refusedBefore = logLines.filter((l) => l.includes('escrow event refused')).length;
    const result = await w.tick();
    expect(result.applied).toBe(0);
    const after = await orderOf(orderId);
    expect(after.updated_at).toBe(before.updated_at);
    expect(after.source_intent).toEqual(before.source_intent);
    expect(logLines.filter((l) => l.includes('escrow event refused')).length).toBe(refusedBefore);
  });

  it('rewinds when a block it already read is replaced (a reorg deeper than the confirmations)', async () => {
    const w = main();
    await node.mine(CONFIRMATIONS + 1);
    const snapshot = await node.rpc<string>('evm_snapshot');
    await node.mine(CONFIRMATIONS + 3);
    await w.tick();
    const readUpTo = await cursor();
    await node.rpc('evm_revert', [snapshot]);
    await node.rpc('evm_increaseTime', [7]); // other timestamps: other blocks at the same heights
    await node.mine(CONFIRMATIONS + 6);
    const result = await w.tick();
    expect(result.nextBlock).toBeLessThan(readUpTo);
    expect(logLines.some((l) => l.includes('reorg deeper than the confirmation depth'))).toBe(true);
    await w.tick(); // and reads forward again
    expect(await cursor()).toBeGreaterThanOrEqual(readUpTo);
  });

  it('one watcher per chain: the standby applies nothing until the leader stops renewing, then takes over', async () => {
    const leader = watcher('instance-1', 800);
    const standby = watcher('instance-2', 800);
    await t.db.prisma.chainWatcher.update({ where: { chain: 'evm_a' }, data: { owner: null, leaseUntil: null } });
    expect((await leader.tick()).leader).toBe(true);

    const { order, orderId } = await placeOrder(call);
    await createEscrow(node, escrow, 'user', order.source_intent);
    await node.mine(CONFIRMATIONS);
    expect(await standby.tick()).toEqual({ leader: false, applied: 0 });
    expect((await orderOf(orderId)).status).toBe('pending');

    // The leader dies without a word (no release): after its lease lapses the standby has the chain.
    await new Promise((r) => setTimeout(r, 900));
    const takeover = await standby.tick();
    expect(takeover).toMatchObject({ leader: true, applied: 1 });
    expect((await orderOf(orderId)).status).toBe('source_created');
    expect((await leader.tick()).leader).toBe(false);
    const row = await t.db.prisma.chainWatcher.findUniqueOrThrow({ where: { chain: 'evm_a' } });
    expect(row.owner).toBe('instance-2');
  });

  it('refuses an RPC node that serves another chain id', async () => {
    const wrong = new EvmWatcher({
      chain: { ...settings, chainId: 1 },
      client: node.client,
      prisma: t.db.prisma,
      logger,
      ingest: async () => undefined,
      owner: 'wrong',
      pollMs: 50,
      leaseMs: 1000,
    });
    await expect(wrong.tick()).rejects.toThrow(/serves chain id 31337, the registry says 1/);
  });
});
