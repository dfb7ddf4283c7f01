import { createHmac, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type QuoteTerms, readQuoteId, signQuoteId, solverFingerprint } from '../src/domain/signed-quotes.ts';

/**
 * Quote ids carry their terms under an HMAC (src/domain/signed-quotes.ts): every term reads back exactly, at any
 * size an amount may have (up to 2^256 - 1), and no other text, key or byte passes for an id.
 */

const KEY = randomBytes(32);
const MAX_AMOUNT = 2n ** 256n - 1n;

const terms = fc.record({
  sourceAsset: fc.stringMatching(/^[a-z0-9_-]{1,40}:[a-z0-9]{1,20}$/),
  destAsset: fc.stringMatching(/^[a-z0-9_-]{1,40}:[a-z0-9]{1,20}$/),
  sourceAmount: fc.bigInt({ min: 1n, max: MAX_AMOUNT }),
  destAmount: fc.bigInt({ min: 1n, max: MAX_AMOUNT }),
  sourceTokenPrice: fc.stringMatching(/^[1-9][0-9]{0,12}(\.[0-9]{1,18})?$/),
  destTokenPrice: fc.stringMatching(/^0\.[0-9]{1,18}[1-9]$/),
  feeBips: fc.integer({ min: 0, max: 10_000 }),
  createdSeconds: fc.integer({ min: 1_600_000_000, max: 2_000_000_000 }),
  lifetime: fc.integer({ min: 1, max: 86_400 }),
});

type Raw = Omit<QuoteTerms, 'createdAt' | 'expiresAt' | 'solver'> & { createdSeconds: number; lifetime: number };

const toTerms = ({ createdSeconds, lifetime, ...t }: Raw): QuoteTerms => ({
  ...t,
  createdAt: new Date(createdSeconds * 1000),
  expiresAt: new Date((createdSeconds + lifetime) * 1000),
  solver: { bitcoin: 'bc1qexample', ethereum: '0x4c1a6f5963Caa654d1D7C6D76F9d34aE10C86cb3' },
});

describe('signed quote ids', () => {
  test('read back every term exactly, amounts up to 2^256 - 1, in an id of at most 512 URL-safe characters', () => {
    fc.assert(
      fc.property(terms, (raw) => {
        const quote = toTerms(raw);
        const id = signQuoteId(quote, KEY);
        expect(id).toMatch(/^q_[A-Za-z0-9_-]+$/);
        expect(id.length).toBeLessThanOrEqual(512);
        const { solver, ...rest } = quote;
        expect(readQuoteId(id, KEY)).toEqual({ ...rest, solverFingerprint: solverFingerprint(solver) });
      }),
      { numRuns: 300 },
    );
  });

  test('lead with their time: ids made in the same second share their first characters, and still differ', () => {
    fc.assert(
      fc.property(terms, terms, (a, b) => {
        const first = signQuoteId(toTerms(a), KEY);
        const second = signQuoteId(toTerms({ ...b, createdSeconds: a.createdSeconds }), KEY);
        // 'q_', then the version and the 4 bytes of the time: 40 bits, the first 6 characters of base64url.
        expect(second.slice(0, 8)).toBe(first.slice(0, 8));
        expect(second).not.toBe(first);
      }),
      { numRuns: 100 },
    );
  });

  test('still read an id of the first layout, with the nonce before the time', () => {
    fc.assert(
      fc.property(terms, (raw) => {
        const quote = toTerms(raw);
        const bytes = Buffer.from(signQuoteId(quote, KEY).slice(2), 'base64url');
        // Version 1: version | nonce (8) | time (4) | the rest as now | its own HMAC-SHA256, first 16 bytes.
        const payload = Buffer.concat([Buffer.from([1]), bytes.subarray(5, 13), bytes.subarray(1, 5), bytes.subarray(13, -16)]);
        const mac = createHmac('sha256', KEY).update(payload).digest().subarray(0, 16);
        const { solver, ...rest } = quote;
        const expected = { ...rest, solverFingerprint: solverFingerprint(solver) };
        expect(readQuoteId(`q_${Buffer.concat([payload, mac]).toString('base64url')}`, KEY)).toEqual(expected);
      }),
      { numRuns: 100 },
    );
  });

  test('refuse any changed byte, a truncated id, another key and text that is no id', () => {
    fc.assert(
      fc.property(terms, fc.nat(), fc.integer({ min: 1, max: 255 }), (raw, at, flip) => {
        const id = signQuoteId(toTerms(raw), KEY);
        const bytes = Buffer.from(id.slice(2), 'base64url');
        const i = at % bytes.length;
        bytes[i] = bytes[i]! ^ flip;
        expect(readQuoteId(`q_${bytes.toString('base64url')}`, KEY)).toBeNull();
        expect(readQuoteId(id.slice(0, -4), KEY)).toBeNull();
        expect(readQuoteId(id, randomBytes(32))).toBeNull();
      }),
      { numRuns: 300 },
    );
    for (const text of ['', 'q_', 'q_nope', `q_${randomBytes(18).toString('base64url')}`, `x_${'A'.repeat(120)}`]) {
      expect(readQuoteId(text, KEY)).toBeNull();
    }
  });

  test('give two quotes on the same terms two ids', () => {
    const quote = toTerms({
      sourceAsset: 'bitcoin:btc',
      destAsset: 'ethereum:wbtc',
      sourceAmount: 1_000_000n,
      destAmount: 998_080n,
      sourceTokenPrice: '64250.12',
      destTokenPrice: '64180.55',
      feeBips: 30,
      createdSeconds: 1_795_000_000,
      lifetime: 300,
    });
    const ids = new Set(Array.from({ length: 1000 }, () => signQuoteId(quote, KEY)));
    expect(ids.size).toBe(1000);
  });

  test('fingerprint the solver addresses whatever the order of their chains', () => {
    expect(solverFingerprint({ a: 'x', b: 'y' }).equals(solverFingerprint({ b: 'y', a: 'x' }))).toBe(true);
    expect(solverFingerprint({ a: 'x', b: 'y' }).equals(solverFingerprint({ a: 'x', b: 'z' }))).toBe(false);
  });
});
