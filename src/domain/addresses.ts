import { base58 } from '@scure/base';
import { Network as BitcoinNetwork, getAddressInfo, validate as validateBitcoin } from 'bitcoin-address-validation';
import { getAddress, isAddress } from 'viem';
import { BadRequestError } from './errors.ts';
import type { Chain } from './registry/registry.ts';

/** What address rules depend on; any Chain is one. */
export type AddressChain = Pick<Chain, 'kind' | 'network' | 'name'>;

/**
 * Addresses per chain kind, checked with the chain's own rules (README, Choices the contract left open):
 * - EVM: 20-byte hex, all lowercase or with a correct EIP-55 checksum (a wrong checksum is a typo);
 * - Bitcoin: base58 (P2PKH, P2SH) or bech32/bech32m (P2WPKH, P2WSH, P2TR) of the chain's own network,
 *   so a testnet address can never receive mainnet funds;
 * - Solana: base58 decoding to exactly 32 bytes (an ed25519 public key or a program-derived address).
 */
export function isValidAddress(chain: AddressChain, address: string): boolean {
  if (typeof address !== 'string' || address === '') return false;
  switch (chain.kind) {
    case 'evm':
      return isAddress(address, { strict: true });
    case 'bitcoin':
      return validateBitcoin(address, chain.network === 'mainnet' ? BitcoinNetwork.mainnet : BitcoinNetwork.testnet);
    case 'solana':
      return isSolanaAddress(address);
  }
}

/**
 * The all-zero address (EVM's 0x0…0, Solana's 32 zero bytes, the system program): well-formed (an EVM registry
 * names it for a chain's own coin), but nobody holds its key, so funds sent there are lost. Never a recipient.
 */
export function isZeroAddress(chain: AddressChain, address: string): boolean {
  switch (chain.kind) {
    case 'evm':
      return /^0x0{40}$/i.test(address);
    case 'solana':
      return address === SOLANA_ZERO;
    case 'bitcoin':
      return false;
  }
}
const SOLANA_ZERO = '1'.repeat(32);

/** The canonical spelling: EIP-55 for EVM, lowercase for bech32; base58 is case-sensitive and kept. */
export function normalizeAddress(chain: AddressChain, address: string): string {
  switch (chain.kind) {
    case 'evm':
      return getAddress(address);
    case 'bitcoin':
      return getAddressInfo(address).bech32 ? address.toLowerCase() : address;
    case 'solana':
      return address;
  }
}

/** A client-supplied address for `chain`, normalised; a 400 naming the field otherwise. */
export function assertAddress(chain: AddressChain, address: string, field: string): string {
  if (!isValidAddress(chain, address)) throw new BadRequestError(`${field} ${addressRule(chain)}`);
  return normalizeAddress(chain, address);
}

/** The rule an address for `chain` breaks, for a message after the field's name. */
export function addressRule(chain: AddressChain): string {
  return `must be a valid ${chain.name} address (${ADDRESS_RULE[chain.kind]})`;
}

const ADDRESS_RULE: Record<Chain['kind'], string> = {
  evm: '0x and 40 hex characters, lowercase or EIP-55 checksummed',
  bitcoin: "base58 or bech32 for the chain's network",
  solana: 'base58 of a 32-byte public key',
};

// A 32-byte key is at most 44 base58 characters; the bound keeps the decoder off huge inputs.
const SOLANA_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

function isSolanaAddress(address: string): boolean {
  if (!SOLANA_ADDRESS.test(address)) return false;
  try {
    return base58.decode(address).length === 32;
  } catch {
    return false;
  }
}
