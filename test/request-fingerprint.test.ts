import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseInput, text } from '../src/domain/input.ts';
import { CreateOrderSchema, fingerprintOf, requestFingerprint } from '../src/domain/orders.ts';

const request = parseInput(CreateOrderSchema, {
  userId: 'alice',
  quoteId: 'q_1',
  source: { asset: 'bitcoin:btc', recipient: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', amount: '10000000' },
  destination: { asset: 'ethereum:wbtc', recipient: '0x5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a', amount: '9990000' },
  commitmentHash: `0x${'AB'.repeat(32)}`,
});

describe('the create-order fingerprint', () => {
  it('is the one orders already stored carry: the fields in the schema order, amounts as decimal strings', () => {
    const stored = JSON.stringify([
      'alice',
      'q_1',
      ['bitcoin:btc', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', '10000000'],
      ['ethereum:wbtc', '0x5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a', '9990000'],
      'ab'.repeat(32),
    ]);
    expect(requestFingerprint(request)).toBe(createHash('sha256').update(stored).digest('hex'));
  });

  it('tells apart requests that differ in any field of the parsed command', () => {
    const changed = [
      { ...request, userId: 'bob' },
      { ...request, source: { ...request.source, amount: request.source.amount + 1n } },
      { ...request, destination: { ...request.destination, recipient: 'other' } },
      { ...request, commitmentHash: 'cd'.repeat(32) },
    ];
    for (const other of changed) expect(requestFingerprint(other)).not.toBe(requestFingerprint(request));
  });

  it('takes in a field added to the schema with no change to the fingerprint code', () => {
    const withMemo = CreateOrderSchema.extend({ memo: text(64).optional() });
    const fingerprint = (memo?: string) =>
      fingerprintOf(
        withMemo,
        parseInput(withMemo, {
          ...request,
          source: { ...request.source, amount: '10000000' },
          destination: { ...request.destination, amount: '9990000' },
          memo,
        }),
      );
    expect(fingerprint('for rent')).not.toBe(fingerprint('for fun'));
    // Without the new field, the fingerprint stays the one already stored.
    expect(fingerprint()).toBe(requestFingerprint(request));
  });
});
