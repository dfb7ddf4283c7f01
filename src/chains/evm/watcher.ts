import type { Logger } from 'pino';
import type { PublicClient } from 'viem';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { PollingLoop } from '../../polling-loop.ts';
import { BadRequestError, ConflictError, NotFoundError } from '../../domain/errors.ts';
import type { EscrowEvent } from '../../domain/escrow-events.ts';
import { deriveSwapId } from '../../domain/orders.ts';
import type { EvmChainSettings } from './chain-config.ts';
import { escrowAbi } from './escrow-abi.ts';

/**
 * Follows one EVM chain's escrow contract and reports its events through the same ingestion path
 * as POST /intents/{swap_id}/events.
 *
 * - Only blocks with enough confirmations are read, so a log a reorg removes before then is never
 *   reported. A deeper reorg (the last block read changed its hash) rewinds the cursor a bounded
 *   way; re-reading is safe because ingesting the same event again is a no-op.
 * - The cursor (next block to read) is in chain_watchers and moves only after the events before it
 *   are ingested: a crash in between re-reads them, again harmlessly.
 * - One watcher per chain across instances: a lease row taken and renewed with one conditional
 *   statement; the others stand by and take over once it lapses. No session advisory lock: Prisma's
 *   pool would hand the locked connection to someone else.
 */

export interface EvmWatcherOptions {
  chain: EvmChainSettings;
  client: PublicClient;
  prisma: PrismaClient;
  logger: Logger;
  /** The ingestion path (recordEscrowEvent); throws the domain's errors like the endpoint does. */
  ingest: (swapId: string, event: EscrowEvent) => Promise<unknown>;
  /** This instance's name in the lease. */
  owner: string;
  pollMs: number;
  leaseMs: number;
  /** Blocks per getLogs request (providers cap the range). */
  maxRange?: number;
  /** How far to step back after a reorg deeper than the confirmations. */
  reorgRewind?: number;
}

export interface TickResult {
  /** False when another instance holds the chain. */
  leader: boolean;
  /** Events ingested that changed an order. */
  applied: number;
  /** The next block to read after this tick. */
  nextBlock?: bigint;
}

interface CursorRow {
  next_block: bigint;
  last_block_number: bigint | null;
  last_block_hash: string | null;
}

type EscrowLog = Awaited<ReturnType<typeof readLogs>>[number];

function readLogs(client: PublicClient, address: `0x${string}`, fromBlock: bigint, toBlock: bigint) {
  return client.getContractEvents({ address, abi: escrowAbi, fromBlock, toBlock, strict: true });
}

const hex = (value: string) => value.slice(2).toLowerCase();

export class EvmWatcher extends PollingLoop {
  private chainIdChecked = false;
  private readonly maxRange: bigint;
  private readonly reorgRewind: bigint;
  private readonly log: Logger;
  /** Blocks from the chain's head down to the cursor after the last round; undefined while another instance leads. */
  lagBlocks: number | undefined;

  constructor(private readonly options: EvmWatcherOptions) {
    const log = options.logger.child({ chain: options.chain.id, watcher: options.owner });
    // RPC or database trouble loses nothing past the cursor: the loop retries, slower each time.
    super({ name: 'watcher', intervalMs: options.pollMs, logger: log, describeError: describe });
    this.log = log;
    this.maxRange = BigInt(options.maxRange ?? 2_000);
    this.reorgRewind = BigInt(options.reorgRewind ?? 128);
  }

  get chain(): string {
    return this.options.chain.id;
  }

  /** Stops polling and gives the lease up, so another instance takes over at once. */
  override async stop(): Promise<void> {
    await super.stop();
    await this.options.prisma.$executeRaw`
      UPDATE chain_watchers SET owner = NULL, lease_until = NULL
      WHERE chain = ${this.chain} AND owner = ${this.options.owner}`.catch(() => undefined);
  }

  /** One round: hold the lease, check for a deep reorg, read and ingest the confirmed blocks. */
  async tick(): Promise<TickResult> {
    const { client, chain } = this.options;
    if (!this.chainIdChecked) {
      // An RPC URL for the wrong network would feed another chain's escrows into this one's orders.
      const chainId = await client.getChainId();
      if (chainId !== chain.chainId) throw new Error(`the RPC node serves chain id ${chainId}, the registry says ${chain.chainId}`);
      this.chainIdChecked = true;
    }
    const cursor = await this.takeLease();
    this.lagBlocks = undefined;
    if (!cursor) return { leader: false, applied: 0 };

    if (cursor.last_block_number !== null && cursor.last_block_hash !== null) {
      const block = await client.getBlock({ blockNumber: cursor.last_block_number });
      if (block.hash !== cursor.last_block_hash) {
        const back = cursor.last_block_number - this.reorgRewind;
        const nextBlock = back > chain.startBlock ? back : chain.startBlock;
        this.log.error(
          { block: cursor.last_block_number.toString(), was: cursor.last_block_hash, now: block.hash, rewindTo: nextBlock.toString() },
          'reorg deeper than the confirmation depth: re-reading',
        );
        await this.saveCursor(nextBlock, null, null);
        return { leader: true, applied: 0, nextBlock };
      }
    }

    const head = await client.getBlockNumber({ cacheTime: 0 });
    const safe = head - BigInt(chain.confirmations) + 1n;
    let next = cursor.next_block;
    let applied = 0;
    while (next <= safe) {
      const to = next + this.maxRange - 1n < safe ? next + this.maxRange - 1n : safe;
      const logs = await readLogs(client, chain.escrowAddress, next, to);
      logs.sort((a, b) => (a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1));
      const timestamps = new Map<bigint, bigint>();
      for (const log of logs) applied += await this.report(log, timestamps);
      const last = await client.getBlock({ blockNumber: to });
      // Fenced on the lease: an instance that lost it (a long pause) must not move the cursor.
      if (!(await this.saveCursor(to + 1n, to, last.hash))) {
        this.log.warn('lost the lease while reading; another instance has the chain');
        return { leader: false, applied };
      }
      next = to + 1n;
    }
    this.lagBlocks = Number(head - next + 1n);
    return { leader: true, applied, nextBlock: next };
  }

  private async takeLease(): Promise<CursorRow | undefined> {
    const { chain, owner, leaseMs } = this.options;
    const rows = await this.options.prisma.$queryRaw<CursorRow[]>`
      INSERT INTO chain_watchers (chain, next_block, owner, lease_until, updated_at)
      VALUES (${chain.id}, ${chain.startBlock}, ${owner}, clock_timestamp() + make_interval(secs => ${leaseMs / 1000}::double precision), clock_timestamp())
      ON CONFLICT (chain) DO UPDATE SET owner = EXCLUDED.owner, lease_until = EXCLUDED.lease_until
      WHERE chain_watchers.owner = ${owner} OR chain_watchers.owner IS NULL OR chain_watchers.lease_until < clock_timestamp()
      RETURNING next_block, last_block_number, last_block_hash`;
    const row = rows[0];
    if (!row) return undefined;
    return {
      next_block: BigInt(row.next_block),
      last_block_number: row.last_block_number === null ? null : BigInt(row.last_block_number),
      last_block_hash: row.last_block_hash,
    };
  }

  /** Moves the cursor and renews the lease (a long backfill keeps it), only while holding it. */
  private async saveCursor(nextBlock: bigint, lastBlock: bigint | null, lastHash: string | null): Promise<boolean> {
    const { chain, owner, leaseMs } = this.options;
    const count = await this.options.prisma.$executeRaw`
      UPDATE chain_watchers
      SET next_block = ${nextBlock}, last_block_number = ${lastBlock}, last_block_hash = ${lastHash},
          lease_until = clock_timestamp() + make_interval(secs => ${leaseMs / 1000}::double precision), updated_at = clock_timestamp()
      WHERE chain = ${chain.id} AND owner = ${owner} AND lease_until > clock_timestamp()`;
    return count === 1;
  }

  /** Ingests one log; returns 1 when it changed an order. Rethrows what should stop the tick. */
  private async report(log: EscrowLog, timestamps: Map<bigint, bigint>): Promise<number> {
    const swapId = hex(log.args.swapId);
    const event = this.toEvent(log, swapId);
    if (!event) return 0;
    let timestamp = timestamps.get(log.blockNumber);
    if (timestamp === undefined) {
      timestamp = (await this.options.client.getBlock({ blockNumber: log.blockNumber })).timestamp;
      timestamps.set(log.blockNumber, timestamp);
    }
    const escrowEvent: EscrowEvent = {
      ...event,
      txHash: log.transactionHash.toLowerCase(),
      blockNumber: log.blockNumber,
      timestamp: new Date(Number(timestamp) * 1000),
    };
    const where = { swapId, kind: event.kind, tx: log.transactionHash, block: log.blockNumber.toString() };
    try {
      const result = (await this.options.ingest(swapId, escrowEvent)) as { changed?: boolean } | undefined;
      if (result?.changed) this.log.info(where, 'escrow event recorded');
      return result?.changed ? 1 : 0;
    } catch (error) {
      if (error instanceof NotFoundError) {
        this.log.debug(where, 'escrow event for a swap that is not ours');
        return 0;
      }
      if (error instanceof ConflictError || error instanceof BadRequestError) {
        // A fact the order cannot take (src/domain/escrow-events.ts): reported and skipped, the chain moves on.
        this.log.warn({ ...where, reason: error.message }, 'escrow event refused');
        return 0;
      }
      throw error;
    }
  }

  /**
   * The kind of event a log is (and a claim's secret), or undefined for a Created log whose fields do not derive its
   * swap id: that escrow is not the intent (a smaller amount, another recipient or timelock), and
   * recording it would tell the other side that funds are locked when they are not.
   */
  private toEvent(log: EscrowLog, swapId: string): Pick<EscrowEvent, 'kind' | 'commitment'> | undefined {
    switch (log.eventName) {
      case 'Created': {
        const { creator, recipient, token, amount, commitmentHash, cancelAfter } = log.args;
        const derived = deriveSwapId({
          chain: this.options.chain.id,
          tokenAddress: token,
          creator,
          recipient,
          amount,
          commitmentHash: hex(commitmentHash),
          cancelAfter,
        });
        if (derived !== swapId) {
          this.log.warn(
            { swapId, tx: log.transactionHash, creator, recipient, token, amount: amount.toString(), cancelAfter: cancelAfter.toString() },
            'escrow does not match its swap id (amount, parties, token, hash or timelock differ): ignored',
          );
          return undefined;
        }
        return { kind: 'create' };
      }
      case 'Claimed':
        return { kind: 'claim', commitment: hex(log.args.secret) };
      case 'Cancelled':
        return { kind: 'cancel' };
    }
  }
}

/** An error for the logs without a viem error's long details (request bodies, URLs with keys). */
export function describe(error: unknown): string {
  if (error && typeof error === 'object' && 'shortMessage' in error && typeof error.shortMessage === 'string') {
    return error.shortMessage;
  }
  return error instanceof Error ? error.message : String(error);
}
