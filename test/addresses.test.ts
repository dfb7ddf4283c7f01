import { base58 } from '@scure/base';
import { describe, expect, it } from 'vitest';
import { assertAddress, isValidAddress, isZeroAddress, normalizeAddress } from '../src/domain/addresses.ts';
import { DomainError } from '../src/domain/errors.ts';
import { loadRegistry, type Chain } from '../src/domain/registry/registry.ts';

const registry = loadRegistry();
function chain(id: string): Chain {
  const found = registry.chain(id);
  if (!found) throw new Error(`default registry has no chain ${id}`);
  return found;
}

const ethereum = chain('ethereum');
const sepolia = chain('ethereum_sepolia');
const bitcoin = chain('bitcoin');
const bitcoinTestnet = chain('bitcoin_testnet');
const solana = chain('solana');
const devnet = chain('solana_devnet');

// EIP-55's own test vectors, and real token contracts.
const EIP55 = [
  '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
  '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
  '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', // USDC
  '0x0000000000000000000000000000000000000000',
];

describe('EVM addresses', () => {
  it.each(EIP55)('accepts the checksummed %s on mainnet and testnet', (address) => {
    expect(isValidAddress(ethereum, address)).toBe(true);
    expect(isValidAddress(sepolia, address)).toBe(true);
    expect(isValidAddress(ethereum, address.toLowerCase())).toBe(true);
  });

  it.each([
    ['a wrong checksum (one letter case flipped)', '0x5aaeb6053F3E94C9b9A09f33669435E7Ef1BeAed'],
    ['a wrong checksum (USDC)', '0xa0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'],
    ['all uppercase hex', '0x5AAEB6053F3E94C9B9A09F33669435E7EF1BEAED'],
    ['no 0x prefix', '5aaeb6053f3e94c9b9a09f33669435e7ef1beaed'],
    ['a 0X prefix', '0X5aaeb6053f3e94c9b9a09f33669435e7ef1beaed'],
    ['19 bytes', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1bea'],
    ['21 bytes', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed00'],
    ['a non-hex character', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaeg'],
    ['surrounding spaces', ' 0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed'],
    ['a bitcoin address', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4'],
    ['empty', ''],
  ])('rejects %s', (_why, address) => {
    expect(isValidAddress(ethereum, address)).toBe(false);
  });

  it('normalises to the EIP-55 checksum', () => {
    expect(normalizeAddress(ethereum, '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')).toBe(EIP55[0]);
    expect(normalizeAddress(ethereum, EIP55[0]!)).toBe(EIP55[0]);
  });
});

describe('Bitcoin addresses', () => {
  const mainnet = {
    p2pkh: '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2',
    p2sh: '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy',
    p2wpkh: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', // BIP-173
    p2wpkhUpper: 'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', // BIP-173: all-uppercase is valid
    p2wsh: 'bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3',
    p2tr: 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0', // BIP-350, bech32m
  };
  const testnet = {
    p2pkh: 'mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn',
    p2sh: '2MzQwSSnBHWHqSAqtTVQ6v47XtaisrJa1Vc',
    p2wpkh: 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx',
    p2wsh: 'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7',
    p2tr: 'tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c',
  };

  it.each(Object.entries(mainnet))('accepts the mainnet %s only on mainnet', (_type, address) => {
    expect(isValidAddress(bitcoin, address)).toBe(true);
    expect(isValidAddress(bitcoinTestnet, address)).toBe(false);
  });

  it.each(Object.entries(testnet))('accepts the testnet %s only on testnet', (_type, address) => {
    expect(isValidAddress(bitcoinTestnet, address)).toBe(true);
    expect(isValidAddress(bitcoin, address)).toBe(false);
  });

  it.each([
    ['a bad bech32 checksum', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5'],
    ['mixed case bech32', 'bc1qW508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4'],
    ['taproot with a bech32 (not bech32m) checksum', 'bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7k7grplx'],
    ['a bad base58 checksum', '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3'],
    ['a regtest address', 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080'],
    ['surrounding spaces', ' bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4'],
    ['an EVM address', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'],
    ['empty', ''],
  ])('rejects %s', (_why, address) => {
    expect(isValidAddress(bitcoin, address)).toBe(false);
    expect(isValidAddress(bitcoinTestnet, address)).toBe(false);
  });

  it('normalises bech32 to lowercase and leaves base58 alone', () => {
    expect(normalizeAddress(bitcoin, mainnet.p2wpkhUpper)).toBe(mainnet.p2wpkh);
    expect(normalizeAddress(bitcoin, mainnet.p2tr)).toBe(mainnet.p2tr);
    expect(normalizeAddress(bitcoin, mainnet.p2pkh)).toBe(mainnet.p2pkh);
    expect(normalizeAddress(bitcoinTestnet, testnet.p2sh)).toBe(testnet.p2sh);
  });
});

describe('Solana addresses', () => {
  it.each([
    ['the USDC mint', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'],
    ['the wrapped SOL mint', 'So11111111111111111111111111111111111111112'],
    ['the system program (32 zero bytes)', '11111111111111111111111111111111'],
    ['the devnet USDC mint', '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU'],
    ['any 32 bytes', base58.encode(new Uint8Array(32).fill(0xab))],
  ])('accepts %s on mainnet and devnet', (_what, address) => {
    expect(isValidAddress(solana, address)).toBe(true);
    expect(isValidAddress(devnet, address)).toBe(true);
    expect(normalizeAddress(solana, address)).toBe(address);
  });

  it.each([
    ['a 31-byte key', base58.encode(new Uint8Array(31).fill(7))],
    ['a 33-byte key', base58.encode(new Uint8Array(33).fill(7))],
    ['an extra leading 1 (33 bytes)', '1EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'],
    ['a 0 (not in the base58 alphabet)', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt10'],
    ['an O (not in the base58 alphabet)', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDtOv'],
    ['an l (not in the base58 alphabet)', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDtlv'],
    ['surrounding spaces', ' EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'],
    ['an EVM address', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'],
    ['a very long string', 'z'.repeat(5000)],
    ['empty', ''],
  ])('rejects %s', (_why, address) => {
    expect(isValidAddress(solana, address)).toBe(false);
  });
});

describe('assertAddress', () => {
  it('returns the normalised address', () => {
    expect(assertAddress(ethereum, '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed', 'destination.recipient')).toBe(EIP55[0]);
    expect(assertAddress(bitcoin, 'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', 'source.recipient')).toBe(
      'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
    );
  });

  it('throws a 400 naming the field, the chain and the rule', () => {
    const cases: [Chain, string][] = [
      [bitcoin, 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx'],
      [ethereum, '0x5aaeb6053F3E94C9b9A09f33669435E7Ef1BeAed'],
      [solana, base58.encode(new Uint8Array(31))],
    ];
    for (const [target, address] of cases) {
      let error: unknown;
      try {
        assertAddress(target, address, 'source.recipient');
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).code).toBe('BAD_REQUEST');
      expect((error as DomainError).message).toMatch(new RegExp(`^source\\.recipient must be a valid ${target.name} address \\(.+\\)$`));
    }
  });
});

describe('the zero address', () => {
  it('is well-formed but nobody holds its key: EVM 0x0…0 and Solana 32 zero bytes; any other address is not it', () => {
    expect(isZeroAddress(ethereum, '0x0000000000000000000000000000000000000000')).toBe(true);
    expect(isZeroAddress(solana, '11111111111111111111111111111111')).toBe(true);
    expect(isZeroAddress(ethereum, '0x0000000000000000000000000000000000000001')).toBe(false);
    expect(isZeroAddress(ethereum, EIP55[0]!)).toBe(false);
    expect(isZeroAddress(solana, 'So11111111111111111111111111111111111111112')).toBe(false);
    expect(isZeroAddress(bitcoin, '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2')).toBe(false);
  });
});
