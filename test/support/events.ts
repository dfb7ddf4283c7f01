import { randomBytes } from 'node:crypto';
import { WATCHER_KEY, type TestApp } from './app.ts';

/** A watcher's report of one escrow event. */
export function escrowEvent(kind: 'create' | 'claim' | 'cancel', block: number, extra: Record<string, unknown> = {}, at = new Date()) {
  return {
    kind,
    tx_hash: `0x${randomBytes(32).toString('hex')}`,
    block_number: block,
    timestamp: at.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    ...extra,
  };
}

export function postEvent(t: TestApp, swapId: string, event: unknown, key = WATCHER_KEY) {
  return t.rest('POST', `/intents/${swapId}/events`, event, { authorization: `Bearer ${key}` });
}
