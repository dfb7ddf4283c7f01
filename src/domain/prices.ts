import { isPositiveDecimalString } from './amounts.ts';
import type { Asset, Registry } from './registry/registry.ts';

/**
 * Where USD prices come from. Pluggable so a live feed can replace the static table;
 * a price is a positive decimal string, never a float.
 */
export interface PriceSource {
  priceUsd(asset: Asset): Promise<string>;
}

/** The default: the static `price_usd` of each asset in the registry. */
export class StaticPriceSource implements PriceSource {
  constructor(private readonly registry: Registry) {}

  async priceUsd(asset: Asset): Promise<string> {
    const listed = this.registry.asset(asset.id);
    if (!listed) throw new Error(`no price for ${asset.id}: not a listed asset`);
    return listed.price_usd;
  }
}

export interface DestinationAmountInput {
  sourceAmount: bigint;
  sourceDecimals: number;
  destDecimals: number;
  sourcePriceUsd: string;
  destPriceUsd: string;
  feeBips: number;
}

const BIPS = 10_000n;

/**
 * What the solver pays out for `sourceAmount`: its USD value at the source price, converted at the
 * destination price, less `feeBips`, in destination base units, rounded down.
 *
 *   dest = sourceAmount / 10^sd * sp / dp * (10000 - fee) / 10000 * 10^dd
 *
 * Done as one fraction of integers (prices are scaled by their own decimal places), with every
 * multiplication before a single floor division, so the result is exact for any size.
 */
export function destinationAmount(input: DestinationAmountInput): bigint {
  const { sourceAmount, sourceDecimals, destDecimals, sourcePriceUsd, destPriceUsd, feeBips } = input;
  if (sourceAmount < 0n) throw new RangeError('sourceAmount must not be negative');
  const sourcePrice = parsePrice(sourcePriceUsd, 'sourcePriceUsd');
  const destPrice = parsePrice(destPriceUsd, 'destPriceUsd');
  const keep = BIPS - bips(feeBips);
  const numerator = sourceAmount * sourcePrice.scaled * destPrice.unit * pow10(destDecimals, 'destDecimals') * keep;
  const denominator = sourcePrice.unit * destPrice.scaled * pow10(sourceDecimals, 'sourceDecimals') * BIPS;
  return numerator / denominator; // both non-negative: truncation is the floor
}

/** The exact USD value of `amount` base units at `priceUsd`, as a plain decimal string ("6425.012"). */
export function usdValue(amount: bigint, decimals: number, priceUsd: string): string {
  if (amount < 0n) throw new RangeError('amount must not be negative');
  const price = parsePrice(priceUsd, 'priceUsd');
  const fractionDigits = price.fractionDigits + wholeDigits(decimals, 'decimals');
  return formatScaled(amount * price.scaled, fractionDigits);
}

interface ScaledDecimal {
  /** The digits as an integer: "64250.12" -> 6425012n. */
  scaled: bigint;
  /** 10^fractionDigits: "64250.12" -> 100n. */
  unit: bigint;
  fractionDigits: number;
}

/** A positive decimal string as scaled/unit. Prices come from our registry or price source, so a bad one is a bug (not a 400). */
function parsePrice(value: string, name: string): ScaledDecimal {
  if (!isPositiveDecimalString(value)) throw new RangeError(`${name} must be a positive decimal string, got ${JSON.stringify(value)}`);
  const [whole = '', fraction = ''] = value.split('.');
  return { scaled: BigInt(whole + fraction), unit: 10n ** BigInt(fraction.length), fractionDigits: fraction.length };
}

function bips(feeBips: number): bigint {
  if (!Number.isInteger(feeBips) || feeBips < 0 || feeBips > 10_000) {
    throw new RangeError(`feeBips must be an integer from 0 to 10000, got ${feeBips}`);
  }
  return BigInt(feeBips);
}

function wholeDigits(decimals: number, name: string): number {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 255) {
    throw new RangeError(`${name} must be an integer from 0 to 255, got ${decimals}`);
  }
  return decimals;
}

const pow10 = (decimals: number, name: string): bigint => 10n ** BigInt(wholeDigits(decimals, name));

/** `value / 10^fractionDigits` as a decimal string without trailing zeros. */
function formatScaled(value: bigint, fractionDigits: number): string {
  const digits = value.toString().padStart(fractionDigits + 1, '0');
  const whole = digits.slice(0, digits.length - fractionDigits);
  const fraction = digits.slice(digits.length - fractionDigits).replace(/0+$/, '');
  return fraction === '' ? whole : `${whole}.${fraction}`;
}
