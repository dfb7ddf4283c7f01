import { base58 } from '@scure/base';
import { getAddress } from 'viem';
import { isValidAddress, isZeroAddress } from '../../../src/domain/addresses.ts';
import type { Chain } from '../../../src/domain/registry/registry.ts';
import { segwitV0Address } from './bech32.ts';
import type { Rng } from './rng.ts';

export interface SeedUser {
  id: string;
  /** How active the user is, relative to the others. */
  weight: number;
  evm: string;
  bitcoin: string;
  bitcoinTestnet: string;
  solana: string;
}

const NAMES = [
  'alice',
  'bob',
  'carol',
  'dave',
  'erin',
  'frank',
  'grace',
  'heidi',
  'ivan',
  'judy',
  'karl',
  'liam',
  'mallory',
  'nina',
  'oscar',
  'peggy',
  'quentin',
  'rupert',
  'sybil',
  'trent',
  'ursula',
  'victor',
  'walter',
  'xena',
  'yara',
  'zoe',
  'amir',
  'bea',
  'chen',
  'dmitri',
  'elif',
  'fatima',
  'goran',
  'hana',
  'ines',
  'jonas',
  'kenji',
  'lucia',
  'mateo',
  'noor',
];

export function makeUsers(rng: Rng, count: number): SeedUser[] {
  return Array.from({ length: count }, (_, i) => {
    const round = Math.floor(i / NAMES.length);
    const name = NAMES[i % NAMES.length]!;
    const key = rng.bytes(32);
    return {
      id: round === 0 ? name : `${name}-${round + 1}`,
      // A few users trade a lot, most trade a little (Zipf-like).
      weight: 1 / (i + 1) ** 0.8,
      evm: getAddress(`0x${rng.bytes(20).toString('hex')}`),
      bitcoin: segwitV0Address('bc', key.subarray(0, 20)),
      bitcoinTestnet: segwitV0Address('tb', key.subarray(12, 32)),
      solana: base58.encode(rng.bytes(32)),
    };
  });
}

/** Which of the user's addresses a chain takes. */
export function addressOn(user: SeedUser, chain: Chain): string {
  if (chain.kind === 'evm') return user.evm;
  if (chain.kind === 'solana') return user.solana;
  return chain.network === 'mainnet' ? user.bitcoin : user.bitcoinTestnet;
}

const checkedAddresses = new Map<string, string>();

/** The user's address on a chain, checked by the product's own rule once per user and chain. */
export function userAddress(user: SeedUser, chain: Chain): string {
  const key = `${user.id}\u0000${user.evm}\u0000${chain.id}`;
  const known = checkedAddresses.get(key);
  if (known !== undefined) return known;
  const address = addressOn(user, chain);
  if (!isValidAddress(chain, address) || isZeroAddress(chain, address)) {
    throw new Error(`seed made an address no order may have on ${chain.id}: ${address}`);
  }
  checkedAddresses.set(key, address);
  return address;
}
