import { base58 } from '@scure/base';
import type { ChainKind, Registry } from './registry.ts';

/**
 * How each kind of chain spells a transaction hash, and the spelling lookups compare: hex is
 * case-insensitive, so it is compared in lowercase (escrow events store 0x-hex in lowercase,
 * src/domain/escrow-events.ts); base58 is case-sensitive and kept as it is.
 */
export interface TxHashFormat {
  /** For messages: what a hash of this kind looks like. */
  readonly rule: string;
  /** The hash in its compared spelling, or undefined when it is not one of this kind. */
  normalise(value: string): string | undefined;
}

const HEX_64 = /^[0-9a-fA-F]{64}$/;
const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{64,88}$/;

export const TX_HASH_FORMATS: Record<ChainKind, TxHashFormat> = {
  evm: {
    rule: '0x and 64 hex characters',
    normalise: (value) => (/^0x/i.test(value) && HEX_64.test(value.slice(2)) ? value.toLowerCase() : undefined),
  },
  bitcoin: {
    rule: '64 hex characters (a txid)',
    normalise: (value) => (HEX_64.test(value) ? value.toLowerCase() : undefined),
  },
  solana: {
    rule: 'a base58 signature of 64 bytes',
    normalise: (value) => (BASE58.test(value) && decodesTo64Bytes(value) ? value : undefined),
  },
};

function decodesTo64Bytes(value: string): boolean {
  try {
    return base58.decode(value).length === 64;
  } catch {
    return false;
  }
}

/**
 * The spellings `value` may be stored under, on the registry's kinds of chain: one per kind whose
 * format it has (a 64-hex txid is also what some other kind could mean, so every match counts).
 * Empty when it is a hash of no listed chain.
 */
export function txHashCandidates(registry: Registry, value: string): { hashes: string[]; rules: string[] } {
  const kinds = [...new Set(registry.chains.map((chain) => chain.kind))];
  const hashes = new Set<string>();
  for (const kind of kinds) {
    const hash = TX_HASH_FORMATS[kind].normalise(value);
    if (hash !== undefined) hashes.add(hash);
  }
  return { hashes: [...hashes], rules: kinds.map((kind) => TX_HASH_FORMATS[kind].rule) };
}
