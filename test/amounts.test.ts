import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import {
  AMOUNT_LIMIT,
  isAmountString,
  isDecimalString,
  isPositiveDecimalString,
  normalizeDecimal,
  parseAmount,
} from '../src/domain/amounts.ts';
import { DomainError } from '../src/domain/errors.ts';
import { destinationAmount, usdValue } from '../src/domain/prices.ts';
import { HTTP_STATUS } from '../src/http/status.ts';

const MESSAGE = 'source.amount must be a positive integer string in base units';

function errorOf(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError');
}

describe('parseAmount', () => {
  it.each(['1', '10', '100000000', '64057369640', (AMOUNT_LIMIT - 1n).toString()])('accepts %s', (value) => {
    expect(parseAmount(value, 'source.amount')).toBe(BigInt(value));
  });

  it('accepts 2^256 - 1 exactly', () => {
    const max = '115792089237316195423570985008687907853269984665640564039457584007913129639935';
    expect(parseAmount(max, 'amount')).toBe(2n ** 256n - 1n);
  });

  // Each of these is something BigInt() would accept or misread.
  it.each([
    '',
    ' ',
    ' 1',
    '1 ',
    '\n1',
    '01',
    '00',
    '0',
    '-1',
    '+1',
    '1e3',
    '1E3',
    '1.0',
    '1.',
    '.5',
    '0x10',
    '0b1',
    '0o7',
    '1_000',
    '1,000',
    '١',
    'abc',
    'NaN',
    'Infinity',
  ])('rejects %j with a 400 naming the field', (value) => {
    const error = errorOf(() => parseAmount(value, 'source.amount'));
    expect(error.code).toBe('BAD_REQUEST');
    expect(HTTP_STATUS[error.code]).toBe(400);
    expect(error.message).toBe(MESSAGE);
  });

  it.each([1, 0, 1.5, 1e21, 10n, true, {}, ['1'], Number.NaN])('rejects the non-string %s', (value) => {
    expect(errorOf(() => parseAmount(value, 'source.amount')).message).toBe(MESSAGE);
  });

  // Missing reads as missing, as for every other field.
  it.each([null, undefined])('says %s is missing', (value) => {
    expect(errorOf(() => parseAmount(value, 'source.amount')).message).toBe('source.amount is required');
  });

  it('rejects 2^256 and beyond with its own message', () => {
    for (const value of [AMOUNT_LIMIT.toString(), (AMOUNT_LIMIT * 10n).toString(), '9'.repeat(78), '1'.repeat(10_000)]) {
      const error = errorOf(() => parseAmount(value, 'destination.amount'));
      expect(error.code).toBe('BAD_REQUEST');
      expect(error.message).toBe('destination.amount must be below 2^256');
    }
  });

  it('isAmountString agrees with parseAmount', () => {
    expect(isAmountString('1')).toBe(true);
    expect(isAmountString((AMOUNT_LIMIT - 1n).toString())).toBe(true);
    expect(isAmountString(AMOUNT_LIMIT.toString())).toBe(false);
    expect(isAmountString('0')).toBe(false);
    expect(isAmountString('01')).toBe(false);
    expect(isAmountString(1)).toBe(false);
  });
});

describe('isDecimalString', () => {
  it.each(['0', '1', '1.0', '1.00', '64250.12', '0.5', '0.000001', '123456789012345678901234567890.123456789'])('accepts %s', (value) => {
    expect(isDecimalString(value)).toBe(true);
  });
  it.each(['', ' 1', '1 ', '-1', '+1', '01', '00.5', '.5', '1.', '1e3', '0x10', 'NaN', '1,5', '1.2.3'])('rejects %j', (value) => {
    expect(isDecimalString(value)).toBe(false);
  });
  it('rejects non-strings', () => {
    expect(isDecimalString(1.5)).toBe(false);
    expect(isDecimalString(null)).toBe(false);
  });
  it.each([
    ['1.00', '1'],
    ['1.0', '1'],
    ['10.00', '10'],
    ['100', '100'],
    ['64210.40', '64210.4'],
    ['0.0500', '0.05'],
    ['64250.12', '64250.12'],
  ])('normalizeDecimal(%s) is %s', (value, expected) => {
    expect(normalizeDecimal(value)).toBe(expected);
  });
  it('isPositiveDecimalString also rejects zero', () => {
    expect(isPositiveDecimalString('0')).toBe(false);
    expect(isPositiveDecimalString('0.000')).toBe(false);
    expect(isPositiveDecimalString('0.001')).toBe(true);
  });
});

// An independent oracle: decimal.js with enough precision that nothing is rounded before the floor.
const Exact = Decimal.clone({ precision: 400, rounding: Decimal.ROUND_DOWN });
function oracle(sourceAmount: bigint, sd: number, dd: number, sp: string, dp: string, fee: number): bigint {
  const value = new Exact(sourceAmount.toString())
    .div(new Exact(10).pow(sd))
    .mul(sp)
    .div(dp)
    .mul(10_000 - fee)
    .div(10_000)
    .mul(new Exact(10).pow(dd));
  return BigInt(value.toFixed(0, Decimal.ROUND_DOWN));
}

describe('destinationAmount', () => {
  const btcToUsdc = { sourceDecimals: 8, destDecimals: 6, sourcePriceUsd: '64250.12', destPriceUsd: '1.0', feeBips: 30 };

  it('converts 1 BTC at 64250.12 to USDC at 1.0 less 30 bips exactly', () => {
    // 64250.12 * 0.997 = 64057.36964 USDC = 64057369640 base units, with nothing to round.
    expect(destinationAmount({ ...btcToUsdc, sourceAmount: 100_000_000n })).toBe(64_057_369_640n);
  });

  it('rounds down', () => {
    // 1 sat: 0.0000000001 * 64250.12 * 0.997 USDC = 640.5736964 base units.
    expect(destinationAmount({ ...btcToUsdc, sourceAmount: 1n })).toBe(640n);
    const third = { sourceDecimals: 0, destDecimals: 0, sourcePriceUsd: '1', destPriceUsd: '3', feeBips: 0 };
    expect(destinationAmount({ ...third, sourceAmount: 1n })).toBe(0n);
    expect(destinationAmount({ ...third, sourceAmount: 2n })).toBe(0n);
    expect(destinationAmount({ ...third, sourceAmount: 3n })).toBe(1n);
    expect(destinationAmount({ ...third, sourceAmount: 5n })).toBe(1n);
  });

  it('is exact where floats are not', () => {
    // In floats 0.3 / 0.1 is 2.9999999999999996, which would floor to 2.
    expect(Math.floor((1 * 0.3) / 0.1)).toBe(2);
    const input = { sourceAmount: 1n, sourceDecimals: 0, destDecimals: 0, sourcePriceUsd: '0.3', destPriceUsd: '0.1', feeBips: 0 };
    expect(destinationAmount(input)).toBe(3n);
  });

  it('keeps every digit of a huge amount', () => {
    const sourceAmount = 2n ** 256n - 1n;
    const input = { sourceAmount, sourceDecimals: 18, destDecimals: 6, sourcePriceUsd: '3120.45', destPriceUsd: '1.00', feeBips: 30 };
    const expected = (sourceAmount * 312045n * 9970n) / (10n ** 12n * 100n * 10_000n);
    expect(destinationAmount(input)).toBe(expected);
    expect(destinationAmount(input)).toBe(oracle(sourceAmount, 18, 6, '3120.45', '1.00', 30));
    // The same through doubles is wrong in its low digits.
    const viaFloat = BigInt(Math.floor((Number(sourceAmount) / 1e18) * 3120.45 * 0.997 * 1e6));
    expect(viaFloat).not.toBe(expected);
    expect(expected.toString()).toHaveLength(69); // ~3.6e68 base units
  });

  it('matches a high-precision decimal oracle across decimals, prices and fees', () => {
    const cases: [bigint, number, number, string, string, number][] = [
      [10n ** 18n, 18, 8, '3120.45', '64180.55', 30], // 1 ETH -> WBTC
      [123_456_789n, 8, 18, '64250.12', '3120.45', 30], // BTC -> ETH
      [987_654_321n, 9, 6, '145.62', '1.00', 25], // SOL -> USDC
      [1_000_000n, 6, 8, '1.00', '64210.40', 30], // 1 USDC -> cbBTC
      [77_777_777_777_777_777_777n, 18, 18, '28.73', '3120.45', 1], // AVAX -> ETH
      [3n, 0, 30, '0.000000000000000001', '7.123456789012345678901234567', 9999],
      [10n ** 40n, 6, 0, '1.1', '0.3333', 0],
    ];
    for (const [amount, sd, dd, sp, dp, fee] of cases) {
      const got = destinationAmount({
        sourceAmount: amount,
        sourceDecimals: sd,
        destDecimals: dd,
        sourcePriceUsd: sp,
        destPriceUsd: dp,
        feeBips: fee,
      });
      expect(got, `${amount} ${sp} -> ${dp}`).toBe(oracle(amount, sd, dd, sp, dp, fee));
    }
  });

  it('takes the whole fee range', () => {
    const input = { ...btcToUsdc, sourceAmount: 100_000_000n };
    expect(destinationAmount({ ...input, feeBips: 0 })).toBe(64_250_120_000n);
    expect(destinationAmount({ ...input, feeBips: 10_000 })).toBe(0n);
  });

  it('refuses inputs that can only be bugs', () => {
    const input = { ...btcToUsdc, sourceAmount: 1n };
    expect(() => destinationAmount({ ...input, sourceAmount: -1n })).toThrow(RangeError);
    for (const price of ['', '0', '-1', '1e3', '0x10', ' 1', 'NaN']) {
      expect(() => destinationAmount({ ...input, sourcePriceUsd: price })).toThrow(RangeError);
      expect(() => destinationAmount({ ...input, destPriceUsd: price })).toThrow(RangeError);
    }
    for (const feeBips of [-1, 10_001, 1.5, Number.NaN]) expect(() => destinationAmount({ ...input, feeBips })).toThrow(RangeError);
    for (const decimals of [-1, 1.5, 256]) expect(() => destinationAmount({ ...input, destDecimals: decimals })).toThrow(RangeError);
  });
});

describe('usdValue', () => {
  it.each([
    [100_000_000n, 8, '64250.12', '64250.12'],
    [123_456_789n, 8, '64250.12', '79321.1350806468'],
    [1_000_000n, 6, '1.00', '1'],
    [1_234_567n, 6, '1.00', '1.234567'],
    [1n, 18, '0.5', '0.0000000000000000005'],
    [0n, 8, '64250.12', '0'],
    [100n, 0, '2', '200'],
    [10n ** 18n, 18, '3120.45', '3120.45'],
  ])('values %s base units with %i decimals at %s as %s', (amount, decimals, price, expected) => {
    expect(usdValue(amount, decimals, price)).toBe(expected);
  });

  it('is exact for huge amounts', () => {
    const amount = 2n ** 256n - 1n;
    const expected = new Exact(amount.toString()).div(new Exact(10).pow(18)).mul('3120.45');
    expect(usdValue(amount, 18, '3120.45')).toBe(expected.toFixed());
  });

  it('refuses a bad price', () => {
    expect(() => usdValue(1n, 8, '1e3')).toThrow(RangeError);
    expect(() => usdValue(-1n, 8, '1')).toThrow(RangeError);
  });
});
