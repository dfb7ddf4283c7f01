import { createHash, randomBytes } from 'node:crypto';
import type { EscrowEvent } from '../../../src/domain/escrow-events.ts';
import type { CreateOrderCommand } from '../../../src/domain/orders.ts';
import type { CreateQuoteCommand } from '../../../src/domain/quotes.ts';
import type { Stage } from '../../../src/generated/prisma/client.ts';
import type { PlannedOrder } from './plan.ts';
import { blockAt, txHash } from './routes.ts';
import { userAddress } from './users.ts';

/** What both writers (domain.ts, bulk.ts) are given and return. */
export interface SeedClock {
  /** Sets the domain's clock to a UNIX time in seconds. */
  at(secs: number): void;
}

/** Per planned order, in plan order: its id and the columns the status rule reads, as stored. */
export interface Seeded {
  orderIds: string[];
  rows: { stage: Stage; deadlineAt: Date; destExpiresAt: Date }[];
  events: number;
}

export type Progress = (done: number, events: number) => void;

/** What one planned order sends, as a wallet and a watcher would: both seed modes build it here. */
export function requestsOf(order: PlannedOrder) {
  const { route, user } = order;
  // The wallet's secret: only its sha256 goes into the order; the claims reveal it.
  const secret = randomBytes(32).toString('hex');
  const commitmentHash = createHash('sha256').update(Buffer.from(secret, 'hex')).digest('hex');
  return {
    quote: {
      source: { asset: route.source.id, amount: order.amount },
      destination: { asset: route.destination.id },
    } satisfies CreateQuoteCommand,
    order: (quoteId: string, destAmount: bigint): CreateOrderCommand => ({
      userId: user.id,
      quoteId,
      source: { asset: route.source.id, recipient: userAddress(user, route.sourceChain), amount: order.amount },
      destination: { asset: route.destination.id, recipient: userAddress(user, route.destChain), amount: destAmount },
      commitmentHash,
    }),
    /** The planned escrow events in the order the watcher reports them. */
    events: [...order.events]
      .sort((a, b) => a.seenAt - b.seenAt)
      .map((event) => {
        const chain = event.side === 'source' ? route.sourceChain : route.destChain;
        const escrowEvent: EscrowEvent = {
          kind: event.kind,
          txHash: txHash(chain),
          blockNumber: BigInt(blockAt(chain, event.at)),
          timestamp: new Date(event.at * 1000),
          ...(event.kind === 'claim' ? { commitment: secret } : {}),
        };
        return { side: event.side, seenAt: event.seenAt, event: escrowEvent };
      }),
    commitmentHash,
  };
}
