import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { userId } from '../src/domain/input.ts';
import { WATCHER_KEY, it } from './support/app.ts';
import { makeQuote, newSecret, orderBody, USER_BTC, USER_EVM } from './support/fixtures.ts';

/**
 * Property tests (fast-check). The seed is printed on failure, so a failing run can be replayed
 * with FC_SEED=<seed>. RUNS scales them (CI default: thousands of bodies in all).
 */
const RUNS = Number(process.env.FC_RUNS ?? 1000);
const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : Date.now() % 2 ** 31;
console.log(`fast-check seed ${seed} (replay with FC_SEED=${seed}), ${RUNS} runs per endpoint`);

let swapId: string;
it.beforeAll(async ({ t }) => {
  swapId = (await t.rest('POST', '/orders', orderBody(await makeQuote(t)))).body.result.source_intent.swap_id;
});

/** Arbitrary JSON, with the keys our endpoints read mixed in so bodies reach deep into the checks. */
const keys = fc.constantFrom(
  'user_id',
  'quote_id',
  'source',
  'destination',
  'asset',
  'recipient',
  'amount',
  'commitment_hash',
  'kind',
  'tx_hash',
  'block_number',
  'timestamp',
  'commitment',
  'order_id',
  '__proto__',
  'constructor',
);
const leaf = fc.oneof(
  fc.string(),
  fc.constantFrom('', ' 1 ', '0x10', '1e3', '-1', '01', 'bitcoin:btc', 'ethereum:wbtc', 'claim', '\u0000', '2026-01-01T00:00:00Z'),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.bigInt({ min: 0n, max: 2n ** 260n }).map(String),
);
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, leaf, tie('object'), tie('array')),
  object: fc.dictionary(fc.oneof(keys, fc.string()), tie('value'), { maxKeys: 6 }),
  array: fc.array(tie('value'), { maxLength: 4 }),
})).value;

const ENDPOINTS = ['/quotes', '/orders', '/relayer/claims', 'EVENTS'] as const;

describe('any JSON body to any write endpoint', () => {
  it.for(ENDPOINTS)('%s answers a valid envelope and never a 5xx', { timeout: 300_000 }, async (endpoint, { t }) => {
    await fc.assert(
      fc.asyncProperty(json, async (body) => {
        const path = endpoint === 'EVENTS' ? `/intents/${swapId}/events` : endpoint;
        const reply = await t.rest('POST', path, JSON.stringify(body), { authorization: `Bearer ${WATCHER_KEY}` });
        expect(reply.status).toBeLessThan(500);
        expect(reply.body).toEqual({ status: expect.stringMatching(/^(Success|Error)$/), result: expect.anything() });
        if (reply.status >= 400) expect(typeof reply.body.result).toBe('string');
      }),
      { numRuns: RUNS, seed, verbose: 1 },
    );
  });
});

/** Any text the user id rule accepts (src/domain/input.ts, README Hardening): what the property ranges over. */
const validUserId = fc.string({ minLength: 1, maxLength: 128, unit: 'grapheme' }).filter((s) => userId.safeParse(s).success);

describe('any valid create', () => {
  it('succeeds and reads back identically', async ({ t }) => {
    const assets = (await t.rest('GET', '/assets')).body.result as { id: string; min_amount: string; max_amount: string }[];
    const mainnet = assets.filter((a) => /^(bitcoin|ethereum|arbitrum|base):/.test(a.id));
    const pair = fc.tuple(fc.constantFrom(...mainnet), fc.constantFrom(...mainnet)).filter(([a, b]) => a.id !== b.id);
    await fc.assert(
      fc.asyncProperty(pair, fc.bigInt({ min: 0n, max: 10n ** 30n }), validUserId, async ([src, dst], r, user) => {
        const min = BigInt(src.min_amount);
        const amount = (min + (r % (BigInt(src.max_amount) - min + 1n))).toString();
        const quote = await makeQuote(t, { source: src.id, destination: dst.id, amount });
        const address = (asset: string) => (asset.startsWith('bitcoin:') ? USER_BTC : USER_EVM);
        const body = {
          user_id: user,
          quote_id: quote.quote_id,
          source: { asset: src.id, recipient: address(src.id), amount },
          destination: { asset: dst.id, recipient: address(dst.id), amount: quote.destination.amount },
          commitment_hash: newSecret().commitmentHash,
        };
        const created = await t.rest('POST', '/orders', body);
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        const read = await t.rest('GET', `/orders/${created.body.result.order_id}`);
        expect(read.body.result).toEqual(created.body.result);
        expect(read.body.result).toMatchObject({
          user_id: user.normalize('NFC'),
          source_intent: { amount },
          destination_intent: { amount: quote.destination.amount },
        });
      }),
      { numRuns: Math.max(20, Math.floor(RUNS / 10)), seed, verbose: 1 },
    );
  }, 300_000);
});
