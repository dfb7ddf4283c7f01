import { z } from 'zod';
import { missingOr, parseField } from './input.ts';

/**
 * Amounts are strings of decimal digits in base units, 0 < amount < 2^256 (an EVM uint256). They are
 * checked as text before BigInt sees them, because BigInt is lenient ("" is 0n, " 1 " is 1n,
 * "0x10" is 16n), and they never pass through a JS number.
 */

/** 2^256: one above the largest amount an EVM uint256 holds. */
export const AMOUNT_LIMIT = 2n ** 256n;

// 2^256 - 1 has 78 digits; a longer string is out of range without parsing it.
const MAX_AMOUNT_DIGITS = AMOUNT_LIMIT.toString().length;
const POSITIVE_INTEGER = /^[1-9][0-9]*$/;

/** True for a canonical positive integer string (no sign, no leading zero), of any size. */
export function isPositiveIntegerString(value: unknown): value is string {
  return typeof value === 'string' && POSITIVE_INTEGER.test(value);
}

/** True for a valid amount: a canonical positive integer string below 2^256. */
export function isAmountString(value: unknown): value is string {
  return isPositiveIntegerString(value) && value.length <= MAX_AMOUNT_DIGITS && BigInt(value) < AMOUNT_LIMIT;
}

const AMOUNT_RULE = 'must be a positive integer string in base units';

/** An amount in an input schema: the text checked, then a bigint. */
export const amount = z
  .string({ error: missingOr(AMOUNT_RULE) })
  .regex(POSITIVE_INTEGER, { error: AMOUNT_RULE, abort: true })
  .max(MAX_AMOUNT_DIGITS, { error: 'must be below 2^256', abort: true })
  .refine((value) => BigInt(value) < AMOUNT_LIMIT, { error: 'must be below 2^256', abort: true })
  .transform((value) => BigInt(value));

/** Parses an untrusted amount; a 400 naming the field and the rule otherwise. */
export function parseAmount(value: unknown, field: string): bigint {
  return parseField(amount, value, field);
}

const DECIMAL = /^(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$/;

/** A plain non-negative decimal string such as "64250.12" or "0.5": no sign, exponent or leading zero. */
export function isDecimalString(value: unknown): value is string {
  return typeof value === 'string' && DECIMAL.test(value);
}

/** The shortest spelling of a decimal string: "1.00" -> "1", "64210.40" -> "64210.4". */
export function normalizeDecimal(value: string): string {
  return value.includes('.') ? value.replace(/\.?0+$/, '') : value;
}

/** A decimal string that is above zero (a price). */
export function isPositiveDecimalString(value: unknown): value is string {
  return isDecimalString(value) && /[1-9]/.test(value);
}
