import { writeFileSync } from 'node:fs';
import pg from 'pg';
import type { Hex, TransactionReceipt } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EscrowState, escrowAbi } from '../../src/chains/evm/escrow-abi.ts';
import { ACCOUNTS, KEYS, cancelEscrow, claimEscrow, createEscrow, startNode, type LocalNode } from './support/nodes.ts';
import { placeOrder, registryFile } from './support/orders.ts';
import { api, cloneDatabase, startServer, until, type ServerProcess } from './support/server.ts';

/**
 * Full swaps through the real server process (`npm start`) against two local Hardhat chains:
 * the watcher follows both escrows, the relayer claims on chain B with its own key. Blocks come
 * every 250 ms (and with every transaction); events count after 2 confirmations.
 */

const WATCHER_KEY = 'evm-watcher-key';
const BLOCK_MS = 250;

let a: LocalNode;
let b: LocalNode;
let escrowA: Hex;
let escrowB: Hex;
let database: Awaited<ReturnType<typeof cloneDatabase>>;
let env: Record<string, string>;
let server: ServerProcess;
/** A second instance on the same database and chains. */
let standby: ServerProcess | undefined;
/** Every server process's output, to search for secrets at the end. */
const outputs: (() => string)[] = [];
const secrets: string[] = [];
/** On-chain event -> order status change, in ms, for the closing note. */
const timings: { event: string; status: string; ms: number }[] = [];

beforeAll(async () => {
  [a, b] = await Promise.all([startNode(31337, { blockMs: BLOCK_MS }), startNode(31338, { blockMs: BLOCK_MS })]);
  [escrowA, escrowB] = await Promise.all([a.deployEscrow(), b.deployEscrow()]);
  database = await cloneDatabase();
  env = {
    DATABASE_URL: database.url,
    ASSETS_FILE: registryFile({ a: 31337, b: 31338 }, 2),
    EVM_EVM_A_RPC_URL: a.url,
    EVM_EVM_A_ESCROW_ADDRESS: escrowA,
    EVM_EVM_B_RPC_URL: b.url,
    EVM_EVM_B_ESCROW_ADDRESS: escrowB,
    RELAYER_PRIVATE_KEY: KEYS.relayer,
    WATCHER_KEY,
    WATCHER_POLL_MS: '100',
    WATCHER_LEASE_MS: '2000',
    RELAYER_POLL_MS: '100',
    STATS_CACHE_SECONDS: '1',
    LOG_LEVEL: 'debug',
  };
  server = await start();
});

afterAll(async () => {
  await Promise.all([server?.kill('SIGTERM'), standby?.kill('SIGTERM')]);
  await Promise.all([a?.stop(), b?.stop()]);
  await database?.drop();
  // EVM_TEST_SERVER_LOG=<file> keeps the servers' logs for a look after a failure.
  if (process.env.EVM_TEST_SERVER_LOG) writeFileSync(process.env.EVM_TEST_SERVER_LOG, outputs.map((o) => o()).join(''));
  if (timings.length > 0) {
    process.stdout.write(
      `\nEVM swap timings (tx mined -> order status seen):\n${timings.map((t) => `  ${t.event} -> ${t.status}: ${t.ms} ms`).join('\n')}\n`,
    );
  }
});

async function start(): Promise<ServerProcess> {
  const started = await startServer(env);
  outputs.push(started.output);
  return started;
}

const call = (method: string, path: string, body?: unknown) => api(server.base, method, path, body);
const orderOf = async (orderId: string) => (await call('GET', `/orders/${orderId}`)).body.result;

/** Waits for the order to reach `status` and records how long after the event's transaction was mined. */
async function expectStatus(orderId: string, status: string, event: string, receipt: TransactionReceipt) {
  const minedAt = Date.now(); // the receipt was just seen (polled every 50 ms)
  const order = await until(`${event} -> ${status}`, async () => {
    const current = await orderOf(orderId);
    return current?.status === status ? current : undefined;
  });
  timings.push({ event, status, ms: Date.now() - minedAt });
  expect(receipt.status).toBe('success');
  return order;
}

const escrowState = async (node: LocalNode, escrow: Hex, swapId: string) =>
  (await node.client.readContract({ address: escrow, abi: escrowAbi, functionName: 'swaps', args: [`0x${swapId}`] }))[6];

describe('a swap between two EVM chains', () => {
  it('pending -> source_created -> destination_created -> destination_claimed (relayer) -> completed, and /stats counts it', async () => {
    const { order, orderId, secret } = await placeOrder(call);
    secrets.push(secret);
    expect(order.status).toBe('pending');
    const userBalanceBefore = await b.client.getBalance({ address: ACCOUNTS.user.address });

    // The user locks the source on chain A.
    const sourceCreate = await createEscrow(a, escrowA, 'user', order.source_intent);
    const sourceCreated = await expectStatus(orderId, 'source_created', 'source create on A', sourceCreate);
    expect(sourceCreated.source_intent).toMatchObject({
      create_tx_hash: sourceCreate.transactionHash,
      create_block_number: Number(sourceCreate.blockNumber),
    });

    // The solver locks the destination on chain B.
    const destCreate = await createEscrow(b, escrowB, 'solver', order.destination_intent);
    const destCreated = await expectStatus(orderId, 'destination_created', 'destination create on B', destCreate);
    expect(destCreated.destination_intent.create_tx_hash).toBe(destCreate.transactionHash);

    // The user asks the relayer to claim the destination with the secret.
    const accepted = await call('POST', '/relayer/claims', { order_id: orderId, commitment: secret });
    expect(accepted.status).toBe(202);
    const submitted = await until('claim submitted', async () => {
      const claim = (await call('GET', `/relayer/claims/${orderId}`)).body.result;
      return claim.tx_hash ? claim : undefined;
    });
    const relayerTx = await b.client.waitForTransactionReceipt({ hash: submitted.tx_hash, pollingInterval: 50 });
    expect(relayerTx.from.toLowerCase()).toBe(ACCOUNTS.relayer.address.toLowerCase());
    expect(relayerTx.to?.toLowerCase()).toBe(escrowB.toLowerCase());
    const claimed = await expectStatus(orderId, 'destination_claimed', 'relayer claim on B', relayerTx);
    expect(claimed.destination_intent).toMatchObject({ claim_tx_hash: relayerTx.transactionHash, commitment: secret });
    expect(claimed.source_intent.commitment).toBe(secret);
    expect(await escrowState(b, escrowB, order.destination_intent.swap_id)).toBe(EscrowState.claimed);
    expect(await b.client.getBalance({ address: ACCOUNTS.user.address })).toBe(userBalanceBefore + BigInt(order.destination_intent.amount));
    await until('claim confirmed', async () => {
      const claim = (await call('GET', `/relayer/claims/${orderId}`)).body.result;
      return claim.status === 'confirmed' ? claim : undefined;
    });

    // The solver learns the secret from the order and claims the source on chain A.
    const sourceClaim = await claimEscrow(a, escrowA, 'solver', order.source_intent.swap_id, claimed.source_intent.commitment);
    const completed = await expectStatus(orderId, 'completed', 'source claim on A', sourceClaim);
    expect(completed.source_intent.claim_tx_hash).toBe(sourceClaim.transactionHash);

    const stats = await until(
      'stats count the completed order',
      async () => {
        const reply = await call('GET', '/stats');
        return reply.body.result?.all_time.completed_orders === 1 ? reply.body.result : undefined;
      },
      10_000,
      200,
    );
    expect(stats.all_time).toMatchObject({ total_orders: 1, completed_orders: 1, in_progress_orders: 0 });
    expect(stats.top_chain_pairs[0]).toMatchObject({ source_chain: 'evm_a', dest_chain: 'evm_b', order_count: 1 });

    const health = (await call('GET', '/relayer/health')).body;
    expect(health.chains.evm_a).toMatchObject({ adapter: 'evm', ok: true });
    expect(health.chains.evm_b).toMatchObject({ adapter: 'evm', ok: true });
  });

  it('survives a SIGKILL mid-swap: events mined while it was down are applied once, none twice', async () => {
    const { order, orderId, secret } = await placeOrder(call);
    secrets.push(secret);
    const sourceCreate = await createEscrow(a, escrowA, 'user', order.source_intent);
    const before = await expectStatus(orderId, 'source_created', 'source create on A (before the kill)', sourceCreate);

    await server.kill('SIGKILL');
    // While no watcher runs: the solver's destination escrow, and blocks on both chains.
    const destCreate = await createEscrow(b, escrowB, 'solver', order.destination_intent);
    await Promise.all([a.mine(5), b.mine(5)]);

    // Restarted, with a second instance beside it this time (used by the next test).
    [server, standby] = await Promise.all([start(), start()]);
    const restartedAt = Date.now();
    const after = await until('destination_created after the restart', async () => {
      const current = await orderOf(orderId);
      return current?.status === 'destination_created' ? current : undefined;
    });
    timings.push({
      event: 'destination create on B while the server was down (from restart)',
      status: 'destination_created',
      ms: Date.now() - restartedAt,
    });
    expect(after.destination_intent.create_tx_hash).toBe(destCreate.transactionHash);
    // The source create was not applied again: its record and time are untouched.
    expect(after.source_intent).toEqual(before.source_intent);

    // The rest of the swap goes on as usual with the new process.
    expect((await call('POST', '/relayer/claims', { order_id: orderId, commitment: secret })).status).toBe(202);
    const claimed = await until('destination_claimed', async () => {
      const current = await orderOf(orderId);
      return current?.status === 'destination_claimed' ? current : undefined;
    });
    const sourceClaim = await claimEscrow(a, escrowA, 'solver', order.source_intent.swap_id, claimed.source_intent.commitment);
    await expectStatus(orderId, 'completed', 'source claim on A (after the restart)', sourceClaim);

    // Re-reading blocks after the restart refused nothing (a double application would be a 409).
    const lines = outputs.map((o) => o()).join('');
    expect(lines).not.toContain('escrow event refused');
    expect(await escrowState(b, escrowB, order.destination_intent.swap_id)).toBe(EscrowState.claimed);
  });

  it('two instances: one watches each chain, the other takes over when it is killed', async () => {
    /** The pid of the instance holding each chain's lease. */
    const owners = async (): Promise<Record<string, string | undefined>> => {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        const { rows } = await client.query<{ chain: string; owner: string | null }>('SELECT chain, owner FROM chain_watchers');
        return Object.fromEntries(rows.map((r) => [r.chain, r.owner?.split('-')[0]]));
      } finally {
        await client.end();
      }
    };
    // Both instances run watchers; each chain is held by exactly one of them, the other stands by.
    const instances = [server, standby!];
    const pids = instances.map((i) => String(i.child.pid));
    const before = await owners();
    expect(pids).toContain(before.evm_a);
    expect(pids).toContain(before.evm_b);
    const holder = instances.find((i) => String(i.child.pid) === before.evm_a)!;
    const other = instances.find((i) => i !== holder)!;

    await holder.kill('SIGKILL');
    server = other;
    standby = undefined;
    const { order, orderId, secret } = await placeOrder(call);
    secrets.push(secret);
    const sourceCreate = await createEscrow(a, escrowA, 'user', order.source_intent);
    // Seen once the dead instance's lease (2 s) lapses.
    await expectStatus(orderId, 'source_created', 'source create on A (after the watching instance died)', sourceCreate);
    const otherPid = String(other.child.pid);
    // Each chain's lease is taken over on its own: A's is (its event was seen), B's may follow a poll later.
    await expect.poll(owners, { timeout: 10_000, interval: 250 }).toEqual({ evm_a: otherPid, evm_b: otherPid });
  });

  it('cancel path: the relayer refuses an escrow expired on chain, the solver and then the user refund: cancelled', async () => {
    const { order, orderId, secret } = await placeOrder(call);
    secrets.push(secret);
    const sourceCreate = await createEscrow(a, escrowA, 'user', order.source_intent);
    await expectStatus(orderId, 'source_created', 'source create on A (cancel path)', sourceCreate);
    const destCreate = await createEscrow(b, escrowB, 'solver', order.destination_intent);
    await expectStatus(orderId, 'destination_created', 'destination create on B (cancel path)', destCreate);

    // Chain B's clock passes the destination's cancel_after (the server's clock has not).
    await b.increaseTime(43_200 + 60);
    expect((await call('POST', '/relayer/claims', { order_id: orderId, commitment: secret })).status).toBe(202);
    const failed = await until('claim failed', async () => {
      const claim = (await call('GET', `/relayer/claims/${orderId}`)).body.result;
      return claim.status === 'failed' ? claim : undefined;
    });
    expect(failed.last_error).toMatch(/escrow expired/);
    expect(failed.tx_hash).toBeNull();
    expect(await escrowState(b, escrowB, order.destination_intent.swap_id)).toBe(EscrowState.open);

    const destCancel = await cancelEscrow(b, escrowB, 'solver', order.destination_intent.swap_id);
    const refunding = await expectStatus(orderId, 'refunding', 'destination cancel on B', destCancel);
    expect(refunding.destination_intent.cancel_tx_hash).toBe(destCancel.transactionHash);

    await a.increaseTime(86_400 + 60);
    const sourceCancel = await cancelEscrow(a, escrowA, 'user', order.source_intent.swap_id);
    const cancelled = await expectStatus(orderId, 'cancelled', 'source cancel on A', sourceCancel);
    expect(cancelled.source_intent.cancel_tx_hash).toBe(sourceCancel.transactionHash);
    expect(cancelled.source_intent.commitment).toBeNull();
  });

  it('never logs a secret or the relayer key', () => {
    const lines = outputs.map((o) => o()).join('');
    expect(lines.length).toBeGreaterThan(0);
    expect(lines).toContain('escrow event recorded');
    for (const secret of secrets) expect(lines.toLowerCase()).not.toContain(secret);
    expect(lines.toLowerCase()).not.toContain(KEYS.relayer.slice(2));
  });
});
