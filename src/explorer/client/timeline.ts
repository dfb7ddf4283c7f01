import type { IntentDetail, OrderDetail } from '../documents.ts';

/** One escrow event of an order, as its intents record it. */
export interface EscrowEvent {
  kind: 'CREATE' | 'CLAIM' | 'CANCEL' | 'BRIDGE';
  side: 'source' | 'destination';
  chain: string;
  txHash: string;
  block: number | null;
  at: string | null;
}

function eventsOf(intent: IntentDetail, side: EscrowEvent['side']): EscrowEvent[] {
  const events: EscrowEvent[] = [];
  const add = (kind: EscrowEvent['kind'], txHash: string | null, block: number | null, at: string | null) => {
    if (txHash) events.push({ kind, side, chain: intent.chain, txHash, block, at });
  };
  add('CREATE', intent.createTxHash, intent.createBlockNumber, intent.createTimestamp);
  add('CLAIM', intent.claimTxHash, intent.claimBlockNumber, intent.claimTimestamp);
  add('CANCEL', intent.cancelTxHash, intent.cancelBlockNumber, intent.cancelTimestamp);
  // The hop's bridge transaction has no block or time of its own in the API.
  add('BRIDGE', intent.bridgeTxHash, null, null);
  return events;
}

/** Both escrows' events, oldest first (by block time; an event without one comes last). */
export function timeline(order: OrderDetail): EscrowEvent[] {
  const events = [...eventsOf(order.sourceIntent, 'source'), ...eventsOf(order.destinationIntent, 'destination')];
  return events.sort((a, b) => (a.at ?? '\uffff').localeCompare(b.at ?? '\uffff'));
}
