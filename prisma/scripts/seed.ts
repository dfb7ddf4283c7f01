import { createHash, randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { base58 } from '@scure/base';
import { getAddress } from 'viem';
import { ConfigError, loadConfig, type Config } from '../../src/config.ts';
import { openPglite, openPostgres, type Database } from '../../src/db/database.ts';
import { isValidAddress } from '../../src/domain/addresses.ts';
import type { DomainDeps } from '../../src/domain/deps.ts';
import { applyEscrowEvent, recordEscrowEvent, type EscrowEvent, type EscrowRecord } from '../../src/domain/escrow-events.ts';
import { buildOrder, createOrder, requestFingerprint, type CreateOrderCommand } from '../../src/domain/orders.ts';
import { createQuote, priceQuote, resolvePair, type CreateQuoteCommand } from '../../src/domain/quotes.ts';
import type { Asset, Chain, Registry } from '../../src/domain/registry/registry.ts';
import { ORDER_STATUSES, STATUS_BUCKET, statusAt, statusWhere, type OrderStatus } from '../../src/domain/status/rule.ts';
import { Prisma, type Quote, type Stage } from '../../src/generated/prisma/client.ts';
import { createLogger } from '../../src/logger.ts';
import { createRuntime } from '../../src/runtime.ts';

/**
 * `npm run seed`: fills the configured database with a realistic spread of orders in every status
 * (src/domain/status/rule.ts), through the domain rules (quote, order, escrow events) as the product itself would
 * produce them, each at its own past time on a controlled clock.
 *
 *   npm run seed -- [--orders 200] [--users 40] [--days 10] [--seed orderbook] [--mode bulk|domain]
 *
 * The plan (pairs, amounts, users, addresses, times, statuses) is a pure function of the options, the
 * registry, the configuration and the start time. Secrets and transaction hashes are truly random, as a
 * wallet and a chain make them, so running the seeder again adds orders instead of colliding.
 */

export interface SeedOptions {
  db: Database;
  config: Config;
  /** How many orders to create. */
  orders: number;
  /** How many distinct users place them. */
  users: number;
  /** created_at is spread over the past `days` days. */
  days: number;
  /** Seed of the pseudo-random plan. */
  seed: string | number;
  /** Progress and summary lines. */
  log?: (line: string) => void;
  /** The present the plan is relative to (default: the real clock). */
  now?: () => Date;
  /**
   * `bulk` (default) builds the rows the domain would write, with the domain's own functions, and
   * sends them in batches of array inserts: a million orders in minutes. `domain` makes every quote,
   * order and escrow event through the domain calls, one by one, as the API would.
   */
  mode?: 'bulk' | 'domain';
}

export interface SeedResult {
  /** Orders created by this run. */
  orders: number;
  users: number;
  orderIds: string[];
  /** Status of the seeded orders when seeding ended, read back from the database. */
  byStatus: Record<OrderStatus, number>;
  /** Seeded orders whose status read back differs from the planned one (0 unless something is wrong). */
  mismatches: number;
  /** Escrow events recorded. */
  events: number;
  elapsedMs: number;
}

export const SEED_DEFAULTS = { orders: 200, users: 40, days: 10, seed: 'orderbook' } as const;

// ---------------------------------------------------------------------------------------------
// Deterministic pseudo-random numbers

/** sfc32, seeded from sha256 of the seed text: small, fast, and the same on every machine. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: string | number) {
    const h = createHash('sha256').update(`orderbook-seed:${seed}`).digest();
    this.a = h.readUInt32LE(0);
    this.b = h.readUInt32LE(4);
    this.c = h.readUInt32LE(8);
    this.d = h.readUInt32LE(12);
    for (let i = 0; i < 15; i++) this.uint32();
  }

  uint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** [0, 1) */
  next(): number {
    return this.uint32() / 4294967296;
  }

  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** Log-uniform in [lo, hi]: small values as likely per decade as large ones. */
  logUniform(lo: number, hi: number): number {
    return Math.exp(Math.log(lo) + this.next() * (Math.log(hi) - Math.log(lo)));
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)]!;
  }

  weighted<T>(items: readonly T[], weight: (item: T) => number): T {
    const total = items.reduce((sum, item) => sum + weight(item), 0);
    let r = this.next() * total;
    for (const item of items) {
      r -= weight(item);
      if (r < 0) return item;
    }
    return items[items.length - 1]!;
  }

  /** weighted() for long lists picked from many times: the running totals once, then a binary search. */
  picker<T>(items: readonly T[], weight: (item: T) => number): () => T {
    if (items.length === 0) throw new Error('pick from an empty list');
    let running = 0;
    const totals = items.map((item) => (running += weight(item)));
    return () => {
      const r = this.next() * running;
      let lo = 0;
      let hi = items.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (totals[mid]! > r) hi = mid;
        else lo = mid + 1;
      }
      return items[lo]!;
    };
  }

  bytes(n: number): Buffer {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i++) out[i] = this.uint32() & 0xff;
    return out;
  }

  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [items[i], items[j]] = [items[j]!, items[i]!];
    }
    return items;
  }
}

// ---------------------------------------------------------------------------------------------
// Users and their addresses

const BECH32_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const BECH32_GENERATORS = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

function bech32Polymod(values: number[]): number {
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ v;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk ^= BECH32_GENERATORS[i]!;
  }
  return chk;
}

/** BIP-173 bech32 encoding of a version-0 witness program (P2WPKH for 20 bytes). */
export function segwitV0Address(hrp: string, program: Uint8Array): string {
  const data = [0];
  let acc = 0;
  let bits = 0;
  for (const byte of program) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      data.push((acc >>> bits) & 31);
    }
    acc &= (1 << bits) - 1;
  }
  if (bits > 0) data.push((acc << (5 - bits)) & 31);
  const expanded = [...hrp]
    .map((c) => c.charCodeAt(0) >> 5)
    .concat(
      [0],
      [...hrp].map((c) => c.charCodeAt(0) & 31),
    );
  const mod = bech32Polymod([...expanded, ...data, 0, 0, 0, 0, 0, 0]) ^ 1;
  const checksum = Array.from({ length: 6 }, (_, i) => (mod >>> (5 * (5 - i))) & 31);
  return `${hrp}1${[...data, ...checksum].map((d) => BECH32_CHARSET[d]).join('')}`;
}

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

const checkedAddresses = new Map<string, string>();

/** The user's address on a chain, checked by the product's own rule once per user and chain. */
export function userAddress(user: SeedUser, chain: Chain): string {
  const key = `${user.id}\u0000${user.evm}\u0000${chain.id}`;
  const known = checkedAddresses.get(key);
  if (known !== undefined) return known;
  const address =
    chain.kind === 'evm'
      ? user.evm
      : chain.kind === 'solana'
        ? user.solana
        : chain.network === 'mainnet'
          ? user.bitcoin
          : user.bitcoinTestnet;
  if (!isValidAddress(chain, address)) throw new Error(`seed made an invalid ${chain.id} address ${address}`);
  checkedAddresses.set(key, address);
  return address;
}

// ---------------------------------------------------------------------------------------------
// Pairs, amounts, chains

/** Popular routes of the default registry, with relative popularity. */
const ROUTES: readonly (readonly [string, string, number])[] = [
  ['bitcoin:btc', 'ethereum:wbtc', 14],
  ['ethereum:wbtc', 'bitcoin:btc', 10],
  ['bitcoin:btc', 'base:cbbtc', 8],
  ['base:cbbtc', 'bitcoin:btc', 7],
  ['bitcoin:btc', 'arbitrum:wbtc', 6],
  ['arbitrum:wbtc', 'bitcoin:btc', 6],
  ['avalanche:btcb', 'bitcoin:btc', 3],
  ['ethereum:wbtc', 'base:cbbtc', 2],
  ['ethereum:usdc', 'base:usdc', 8],
  ['base:usdc', 'arbitrum:usdc', 5],
  ['arbitrum:usdc', 'ethereum:usdc', 4],
  ['ethereum:usdt', 'avalanche:usdc', 2],
  ['ethereum:eth', 'arbitrum:eth', 4],
  ['base:eth', 'ethereum:eth', 3],
  ['arbitrum:eth', 'base:eth', 2],
  ['solana:usdc', 'base:usdc', 3],
  ['solana:sol', 'ethereum:usdc', 2],
  ['bitcoin:btc', 'solana:sol', 1],
  ['avalanche:avax', 'ethereum:usdc', 1],
  ['bitcoin_testnet:btc', 'ethereum_sepolia:wbtc', 1],
  ['ethereum_sepolia:usdc', 'base_sepolia:usdc', 1],
];

export interface Route {
  source: Asset;
  sourceChain: Chain;
  destination: Asset;
  destChain: Chain;
  weight: number;
}

/** The popular routes the registry lists; for another registry, every cross-chain pair on one network. */
export function routesFor(registry: Registry): Route[] {
  const route = (sourceId: string, destId: string, weight: number): Route | null => {
    const source = registry.asset(sourceId);
    const destination = registry.asset(destId);
    const sourceChain = source && registry.chain(source.chain);
    const destChain = destination && registry.chain(destination.chain);
    if (!source || !destination || !sourceChain || !destChain || source.id === destination.id) return null;
    if (sourceChain.network !== destChain.network) return null;
    return { source, sourceChain, destination, destChain, weight };
  };
  const known = ROUTES.map(([s, d, w]) => route(s, d, w)).filter((r): r is Route => r !== null);
  if (known.length > 0) return known;
  const all: Route[] = [];
  for (const s of registry.assets) {
    for (const d of registry.assets) {
      if (s.chain === d.chain) continue;
      const r = route(s.id, d.id, 1);
      if (r) all.push(r);
    }
  }
  if (all.length === 0) throw new Error('the registry has no two assets on different chains of one network to swap');
  return all;
}

/**
 * A source amount a person would type: a USD value (log-uniform, a few whales), converted at the
 * asset's price, rounded to 1-4 significant digits, kept within the asset's min/max.
 */
export function sourceAmount(rng: Rng, asset: Asset): bigint {
  const usd = rng.chance(0.05) ? rng.logUniform(50_000, 400_000) : rng.logUniform(20, 50_000);
  const units = usd / Number(asset.price_usd);
  const digits = rng.weighted([1, 2, 3, 4], (d) => [25, 35, 25, 15][d - 1]!);
  const exponent = Math.floor(Math.log10(units)) - (digits - 1);
  const mantissa = BigInt(Math.max(1, Math.round(units / 10 ** exponent)));
  const shift = exponent + asset.decimals;
  let amount = shift >= 0 ? mantissa * 10n ** BigInt(shift) : mantissa / 10n ** BigInt(-shift);
  const min = BigInt(asset.min_amount);
  const max = BigInt(asset.max_amount);
  if (amount < min) amount = min;
  if (amount > max) amount = max;
  return amount;
}

/** Block time and a block height at 2025-01-01T00:00:00Z, for plausible block numbers. */
const BLOCKS: Record<string, { secs: number; base: number }> = {
  ethereum: { secs: 12, base: 21_525_000 },
  arbitrum: { secs: 0.25, base: 290_000_000 },
  base: { secs: 2, base: 24_600_000 },
  avalanche: { secs: 2, base: 55_000_000 },
  bitcoin: { secs: 600, base: 877_000 },
  solana: { secs: 0.4, base: 311_000_000 },
  ethereum_sepolia: { secs: 12, base: 7_400_000 },
  arbitrum_sepolia: { secs: 0.25, base: 110_000_000 },
  base_sepolia: { secs: 2, base: 20_000_000 },
  avalanche_fuji: { secs: 2, base: 37_000_000 },
  bitcoin_testnet: { secs: 600, base: 3_600_000 },
  solana_devnet: { secs: 0.4, base: 350_000_000 },
};
const BLOCK_EPOCH_SECS = Date.UTC(2025, 0, 1) / 1000;

/** The block a chain was at, at a time: monotonic in time, so an escrow's blocks never go backwards. */
export function blockAt(chain: Chain, atSecs: number): number {
  const spec = BLOCKS[chain.id] ?? { secs: chain.kind === 'bitcoin' ? 600 : chain.kind === 'solana' ? 0.4 : 2, base: 1_000_000 };
  return Math.max(1, spec.base + Math.floor((atSecs - BLOCK_EPOCH_SECS) / spec.secs));
}

function txHash(chain: Chain): string {
  if (chain.kind === 'evm') return `0x${randomBytes(32).toString('hex')}`;
  if (chain.kind === 'solana') return base58.encode(randomBytes(64));
  return randomBytes(32).toString('hex');
}

// ---------------------------------------------------------------------------------------------
// The plan: which order, when, and which escrow events bring it to its status

/** Relative frequency of each status in a seeded book; every feasible status appears at least once. */
const STATUS_WEIGHTS: Record<OrderStatus, number> = {
  completed: 50,
  destination_claimed: 4,
  expired: 12,
  cancelled: 8,
  refunding: 6,
  pending: 6,
  source_created: 6,
  destination_created: 8,
};

export interface PlannedEvent {
  side: 'source' | 'destination';
  kind: 'create' | 'claim' | 'cancel';
  /** On-chain time, UNIX seconds. */
  at: number;
  /** When the watcher reports it (the clock during ingestion), UNIX seconds. */
  seenAt: number;
}

export interface PlannedOrder {
  status: OrderStatus;
  route: Route;
  user: SeedUser;
  amount: bigint;
  /** UNIX seconds. */
  createdAt: number;
  /** Seconds between the quote and the order. */
  quoteLead: number;
  events: PlannedEvent[];
}

interface Timing {
  nowS: number;
  maxAge: number;
  deadline: number;
  margin: number;
}

/** Ages (seconds before now) at which an order can be seen in a status, given its route's timelocks. */
function ageWindow(status: OrderStatus, route: Route, t: Timing): [number, number] {
  const destTl = route.destChain.destination_timelock_secs;
  const srcTl = route.sourceChain.source_timelock_secs;
  const { deadline, margin, maxAge } = t;
  const window = ((): [number, number] => {
    switch (status) {
      case 'pending':
        return [Math.min(60, deadline / 4), deadline - margin];
      case 'expired':
        return [deadline + margin, maxAge];
      case 'source_created':
        return [Math.min(300, destTl / 4), destTl - margin];
      case 'destination_created':
        return [Math.min(600, destTl / 3), destTl - margin];
      case 'destination_claimed':
        // The solver claims the source minutes later: this is a recent, passing state.
        return [Math.min(1200, destTl / 3), Math.min(6 * 3600, destTl - margin)];
      case 'completed':
        return [Math.min(1800, destTl / 3), maxAge];
      case 'refunding':
        // Past the destination's cancel_after, the user has not refunded the source yet.
        return [destTl + margin, srcTl + 6 * 3600];
      case 'cancelled':
        return [srcTl + margin, maxAge];
    }
  })();
  return [Math.ceil(window[0]), Math.floor(Math.min(window[1], maxAge))];
}

function feasible(status: OrderStatus, routes: Route[], t: Timing): Route[] {
  return routes.filter((r) => {
    const [lo, hi] = ageWindow(status, r, t);
    return lo <= hi;
  });
}

/** Times after `start`, one per delay; scaled down to end by `end` when they would not fit. */
function fit(start: number, delays: number[], end: number): number[] {
  const total = delays.reduce((a, b) => a + b, 0);
  const scale = total > end - start ? Math.max(0, end - start) / total : 1;
  let at = start;
  return delays.map((d) => (at = Math.max(at, Math.floor(at + d * scale))));
}

function planEvents(rng: Rng, status: OrderStatus, route: Route, createdAt: number, t: Timing): Omit<PlannedEvent, 'seenAt'>[] {
  const destTl = route.destChain.destination_timelock_secs;
  const srcTl = route.sourceChain.source_timelock_secs;
  const latest = t.nowS - 30;
  // Bitcoin needs confirmations; the user funds within the order's deadline.
  const fundDelay = Math.min(route.sourceChain.kind === 'bitcoin' ? rng.logUniform(300, 2400) : rng.logUniform(20, 600), t.deadline * 0.8);
  const solverDelay = route.sourceChain.kind === 'bitcoin' ? rng.logUniform(60, 900) : rng.logUniform(15, 300);
  const userClaimDelay = rng.logUniform(20, 1800);
  const solverClaimDelay = rng.logUniform(10, 600);
  const destCancel = createdAt + destTl + Math.floor(rng.logUniform(60, 3 * 3600));
  const srcCancel = (notAfter: number) => Math.min(createdAt + srcTl + Math.floor(rng.logUniform(60, 6 * 3600)), notAfter);

  const src = (kind: PlannedEvent['kind'], at: number) => ({ side: 'source' as const, kind, at });
  const dst = (kind: PlannedEvent['kind'], at: number) => ({ side: 'destination' as const, kind, at });

  switch (status) {
    case 'pending':
    case 'expired':
      return [];
    case 'source_created': {
      const [created] = fit(createdAt, [fundDelay], Math.min(latest, createdAt + t.deadline - 1));
      return [src('create', created!)];
    }
    case 'destination_created': {
      const [s, d] = fit(createdAt, [fundDelay, solverDelay], latest);
      return [src('create', s!), dst('create', d!)];
    }
    case 'destination_claimed': {
      const [s, d, c] = fit(createdAt, [fundDelay, solverDelay, userClaimDelay], latest);
      return [src('create', s!), dst('create', d!), dst('claim', c!)];
    }
    case 'completed': {
      const [s, d, c, sc] = fit(createdAt, [fundDelay, solverDelay, userClaimDelay, solverClaimDelay], latest);
      const base = [src('create', s!), dst('create', d!), dst('claim', c!)];
      // Rarely the solver misses its window and the user refunds the source after claiming: still completed.
      const refunded = createdAt + srcTl + 3600 <= latest && rng.chance(0.04);
      return [...base, refunded ? src('cancel', srcCancel(latest)) : src('claim', sc!)];
    }
    case 'refunding': {
      const [s, d] = fit(createdAt, [fundDelay, solverDelay], createdAt + destTl - 60);
      const variant = rng.next();
      // The solver refunded its destination escrow.
      if (variant < 0.55 && destCancel <= latest) return [src('create', s!), dst('create', d!), dst('cancel', destCancel)];
      // The destination expired unclaimed and nobody refunded yet, or the solver never funded it.
      if (variant < 0.9) return [src('create', s!), dst('create', d!)];
      return [src('create', s!)];
    }
    case 'cancelled': {
      const [s, d] = fit(createdAt, [fundDelay, solverDelay], createdAt + destTl - 60);
      const cancel = srcCancel(latest);
      if (rng.chance(0.3)) return [src('create', s!), src('cancel', cancel)];
      const dCancel = Math.min(destCancel, cancel);
      return [src('create', s!), dst('create', d!), dst('cancel', dCancel), src('cancel', cancel)];
    }
  }
}

/** Watchers lag: each event is reported a little after it happens, never before an earlier one of its escrow. */
function withReports(rng: Rng, events: Omit<PlannedEvent, 'seenAt'>[], nowS: number): PlannedEvent[] {
  const lastSeen = { source: 0, destination: 0 };
  return events.map((e) => {
    const seenAt = Math.max(Math.min(e.at + rng.int(2, 40), nowS), lastSeen[e.side], e.at);
    lastSeen[e.side] = seenAt;
    return { ...e, seenAt };
  });
}

/** Counts per status: each feasible status at least once (when there is room), the rest by weight. */
function allocate(total: number, statuses: OrderStatus[]): Map<OrderStatus, number> {
  const counts = new Map<OrderStatus, number>(statuses.map((s) => [s, 0]));
  const floor = total >= statuses.length ? 1 : 0;
  for (const s of statuses) counts.set(s, floor);
  const rest = total - floor * statuses.length;
  const weightSum = statuses.reduce((sum, s) => sum + STATUS_WEIGHTS[s], 0);
  const shares = statuses.map((s) => ({ s, exact: (rest * STATUS_WEIGHTS[s]) / weightSum }));
  let given = 0;
  for (const { s, exact } of shares) {
    counts.set(s, counts.get(s)! + Math.floor(exact));
    given += Math.floor(exact);
  }
  // Largest remainders get the last few.
  shares.sort((a, b) => (b.exact % 1) - (a.exact % 1) || STATUS_WEIGHTS[b.s] - STATUS_WEIGHTS[a.s]);
  for (let i = 0; given < rest; i++, given++) {
    const s = shares[i % shares.length]!.s;
    counts.set(s, counts.get(s)! + 1);
  }
  return counts;
}

export interface Plan {
  orders: PlannedOrder[];
  users: SeedUser[];
  /** Statuses that cannot occur within the requested days (e.g. cancelled needs more than a day). */
  skipped: OrderStatus[];
}

/** The whole seeding plan, without touching a database: deterministic for (options, registry, config, now). */
export function planSeed(
  options: Pick<SeedOptions, 'orders' | 'users' | 'days' | 'seed'>,
  registry: Registry,
  config: Pick<Config, 'orderDeadlineSeconds' | 'quoteTtlSeconds'>,
  now: Date,
): Plan {
  const rng = new Rng(options.seed);
  const users = makeUsers(rng, options.users);
  const routes = routesFor(registry);
  const nowS = Math.floor(now.getTime() / 1000);
  const deadline = config.orderDeadlineSeconds;
  const timing: Timing = { nowS, maxAge: Math.floor(options.days * 86400), deadline, margin: Math.min(600, Math.floor(deadline / 6)) };

  const statuses = ORDER_STATUSES.filter((s) => feasible(s, routes, timing).length > 0);
  const skipped = ORDER_STATUSES.filter((s) => !statuses.includes(s));
  if (statuses.length === 0) throw new Error('no order status fits in the requested number of days');
  const counts = allocate(options.orders, statuses);
  const targets = rng.shuffle(statuses.flatMap((s) => Array<OrderStatus>(counts.get(s)!).fill(s)));

  const pickUser = rng.picker(users, (u) => u.weight);
  const pickRoute = new Map(statuses.map((s) => [s, rng.picker(feasible(s, routes, timing), (r) => r.weight)]));
  const orders = targets.map((status): PlannedOrder => {
    const route = pickRoute.get(status)!();
    const user = pickUser();
    const amount = sourceAmount(rng, route.source);
    const [lo, hi] = ageWindow(status, route, timing);
    const createdAt = nowS - rng.int(lo, hi);
    const quoteLead = Math.min(rng.int(2, 45), Math.max(0, config.quoteTtlSeconds - 1));
    const events = withReports(rng, planEvents(rng, status, route, createdAt, timing), nowS);
    return { status, route, user, amount, createdAt, quoteLead, events };
  });
  // Oldest first, as the book grew.
  orders.sort((a, b) => a.createdAt - b.createdAt);
  return { orders, users, skipped };
}

// ---------------------------------------------------------------------------------------------
// Seeding through the domain rules

function emptyCounts(): Record<OrderStatus, number> {
  return Object.fromEntries(ORDER_STATUSES.map((s) => [s, 0])) as Record<OrderStatus, number>;
}

export async function seed(options: SeedOptions): Promise<SeedResult> {
  const { db, config } = options;
  const log = options.log ?? (() => undefined);
  for (const [name, value] of [
    ['orders', options.orders],
    ['users', options.users],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  }
  if (!Number.isFinite(options.days) || options.days <= 0) throw new Error('days must be a positive number');

  const realNow = options.now ?? (() => new Date());
  const started = Date.now();
  const startedAt = realNow();
  // The domain's clock: moved to each quote, order and event's own past time.
  let current = startedAt;
  const runtime = createRuntime({ config, db, logger: createLogger(config.logLevel), now: () => new Date(current) });
  const { deps } = runtime;
  const clock: SeedClock = { at: (secs: number) => void (current = new Date(secs * 1000)) };

  const mode = options.mode ?? 'bulk';
  const plan = planSeed(options, deps.registry, config, startedAt);
  if (plan.skipped.length > 0) {
    log(`note: ${plan.skipped.join(', ')} cannot happen within ${options.days} day(s); use more --days to see them`);
  }
  log(
    `seeding ${plan.orders.length} orders from ${plan.users.length} users over ${options.days} day(s) ` +
      `(seed ${JSON.stringify(String(options.seed))}, ${db.kind}, ${mode})`,
  );
  const progress = (done: number, events: number) =>
    log(
      `  ${done}/${plan.orders.length} orders, ${events} escrow events (${((Date.now() - started) / 1000).toFixed(1)} s, ` +
        `${Math.round(done / Math.max(0.001, (Date.now() - started) / 1000))} orders/s)`,
    );

  let seeded: Seeded;
  try {
    seeded = mode === 'bulk' ? await seedInBulk(db, deps, clock, plan, progress) : await seedThroughDomain(deps, clock, plan, progress);
  } finally {
    await runtime.stop();
  }

  // The plan is relative to the start: each order must be in its planned status at that time. What
  // the product says at the end can differ for orders whose deadline passed while seeding ran.
  const end = realNow();
  const byStatus = emptyCounts();
  let mismatches = 0;
  let movedByClock = 0;
  for (const [index, row] of seeded.rows.entries()) {
    const status = statusAt(row, end);
    byStatus[status]++;
    if (plan.orders[index]!.status !== statusAt(row, startedAt)) mismatches++;
    else if (plan.orders[index]!.status !== status) movedByClock++;
  }
  const elapsedMs = Date.now() - started;
  const { orderIds, events } = seeded;

  log(`seeded ${orderIds.length} orders, ${events} escrow events in ${(elapsedMs / 1000).toFixed(1)} s`);
  const width = Math.max(...ORDER_STATUSES.map((s) => s.length));
  for (const s of ORDER_STATUSES) log(`  ${s.padEnd(width)} ${String(byStatus[s]).padStart(8)}   (${STATUS_BUCKET[s]})`);
  if (movedByClock > 0)
    log(`note: ${movedByClock} order(s) reached a deadline while seeding ran, as their clock says (expired, refunding)`);
  if (mismatches > 0) log(`warning: ${mismatches} order(s) are not in their planned status`);
  const [total, ...perStatus] = await Promise.all([
    db.prisma.order.count(),
    ...ORDER_STATUSES.map((s) => db.prisma.order.count({ where: statusWhere(s, end) })),
  ]);
  log(`database now holds ${total} orders: ${ORDER_STATUSES.map((s, i) => `${perStatus[i]} ${s}`).join(', ')}`);

  return { orders: orderIds.length, users: plan.users.length, orderIds, byStatus, mismatches, events, elapsedMs };
}

interface SeedClock {
  /** Sets the domain's clock to a UNIX time in seconds. */
  at(secs: number): void;
}

/** Per planned order, in plan order: its id and the columns the status rule reads, as stored. */
interface Seeded {
  orderIds: string[];
  rows: { stage: Stage; deadlineAt: Date; destExpiresAt: Date }[];
  events: number;
}

type Progress = (done: number, events: number) => void;

/** What one planned order sends, as a wallet and a watcher would: both seed modes build it here. */
function requestsOf(order: PlannedOrder) {
  const { route, user } = order;
  // The wallet's secret: only its sha256 goes into the order; the claims reveal it.
  const secret = randomBytes(32).toString('hex');
  const commitmentHash = createHash('sha256').update(Buffer.from(secret, 'hex')).digest('hex');
  return {
    quote: {
      source: { asset: route.source.id, amount: order.amount },
      destination: { asset: route.destination.id },
    } satisfies CreateQuoteCommand,
    order: (quoteId: string, destAmount: bigint): CreateOrderCommand => ({
      userId: user.id,
      quoteId,
      source: { asset: route.source.id, recipient: userAddress(user, route.sourceChain), amount: order.amount },
      destination: { asset: route.destination.id, recipient: userAddress(user, route.destChain), amount: destAmount },
      commitmentHash,
    }),
    /** The planned escrow events in the order the watcher reports them. */
    events: [...order.events]
      .sort((a, b) => a.seenAt - b.seenAt)
      .map((event) => {
        const chain = event.side === 'source' ? route.sourceChain : route.destChain;
        const escrowEvent: EscrowEvent = {
          kind: event.kind,
          txHash: txHash(chain),
          blockNumber: BigInt(blockAt(chain, event.at)),
          timestamp: new Date(event.at * 1000),
          ...(event.kind === 'claim' ? { commitment: secret } : {}),
        };
        return { side: event.side, seenAt: event.seenAt, event: escrowEvent };
      }),
    commitmentHash,
  };
}

async function seedThroughDomain(deps: DomainDeps, clock: SeedClock, plan: Plan, progress: Progress): Promise<Seeded> {
  const orderIds: string[] = [];
  let events = 0;
  const every = Math.max(1, Math.round(plan.orders.length / 10));
  for (const [index, order] of plan.orders.entries()) {
    const requests = requestsOf(order);
    clock.at(order.createdAt - order.quoteLead);
    const quote = await createQuote(deps, requests.quote);
    clock.at(order.createdAt);
    const { orderId } = await createOrder(deps, requests.order(quote.id, BigInt(quote.destAmount.toFixed())));
    orderIds.push(orderId);

    if (order.events.length > 0) {
      const { sourceSwapId, destinationSwapId } = await deps.prisma.order.findUniqueOrThrow({
        where: { id: orderId },
        select: { sourceSwapId: true, destinationSwapId: true },
      });
      for (const { side, seenAt, event } of requests.events) {
        clock.at(seenAt);
        await recordEscrowEvent(deps, side === 'source' ? sourceSwapId : destinationSwapId, event);
        events++;
      }
    }
    if ((index + 1) % every === 0 || index + 1 === plan.orders.length) progress(index + 1, events);
  }
  // Read back what the product stored.
  const stored = new Map<string, Seeded['rows'][number]>();
  for (let i = 0; i < orderIds.length; i += 1000) {
    const rows = await deps.prisma.order.findMany({
      where: { id: { in: orderIds.slice(i, i + 1000) } },
      select: { id: true, stage: true, deadlineAt: true, destExpiresAt: true },
    });
    for (const row of rows) stored.set(row.id, row);
  }
  return { orderIds, rows: orderIds.map((id) => stored.get(id)!), events };
}

// ---------------------------------------------------------------------------------------------
// Bulk: the domain's own rows, built in memory and sent as array inserts

const BATCH_ORDERS = 5000;

/** Every value travels as text in a text[] parameter and is cast in SQL: one encoding for pg and PGlite. */
type Cell = string | null;
const text = (value: { toString(): string } | null | undefined): Cell => (value == null ? null : value.toString());
const time = (value: Date | null | undefined): Cell => (value == null ? null : value.toISOString());

const QUOTE_COLUMNS = {
  id: 'text',
  source_asset: 'text',
  source_amount: 'numeric',
  dest_asset: 'text',
  dest_amount: 'numeric',
  source_token_price: 'numeric',
  dest_token_price: 'numeric',
  fee_bips: 'int',
  solver: 'jsonb',
  created_at: 'timestamptz',
  expires_at: 'timestamptz',
  consumed_by: 'text',
} as const;
const INTENT_COLUMNS = {
  swap_id: 'text',
  side: '"Side"',
  chain: 'text',
  asset: 'text',
  token_address: 'text',
  creator: 'text',
  recipient: 'text',
  amount: 'numeric',
  commitment_hash: 'text',
  commitment: 'text',
  cancel_after: 'bigint',
  registry_address: 'text',
  create_tx_hash: 'text',
  create_block_number: 'bigint',
  create_timestamp: 'timestamptz',
  claim_tx_hash: 'text',
  claim_block_number: 'bigint',
  claim_timestamp: 'timestamptz',
  cancel_tx_hash: 'text',
  cancel_block_number: 'bigint',
  cancel_timestamp: 'timestamptz',
  created_at: 'timestamptz',
  updated_at: 'timestamptz',
} as const;
const ORDER_COLUMNS = {
  id: 'text',
  user_id: 'text',
  quote_id: 'text',
  source_token_price: 'numeric',
  dest_token_price: 'numeric',
  fee_bips: 'int',
  commitment_hash: 'text',
  request_hash: 'text',
  stage: '"Stage"',
  deadline_at: 'timestamptz',
  dest_expires_at: 'timestamptz',
  source_chain: 'text',
  dest_chain: 'text',
  source_asset: 'text',
  dest_asset: 'text',
  volume_usd: 'numeric',
  completed_at: 'timestamptz',
  source_swap_id: 'text',
  destination_swap_id: 'text',
  created_at: 'timestamptz',
  updated_at: 'timestamptz',
} as const;

type Row<C> = Record<keyof C, Cell>;

/** One INSERT ... SELECT FROM unnest(...) per table and batch: a single round trip for thousands of rows. */
async function insertRows<C extends Record<string, string>>(db: Database, table: string, columns: C, rows: Row<C>[]): Promise<void> {
  if (rows.length === 0) return;
  const names = Object.keys(columns);
  const sql =
    `INSERT INTO ${table} (${names.map((n) => `"${n}"`).join(', ')}) ` +
    `SELECT ${names.map((n) => `u."${n}"::${columns[n]}`).join(', ')} ` +
    `FROM unnest(${names.map((_, i) => `$${i + 1}::text[]`).join(', ')}) AS u(${names.map((n) => `"${n}"`).join(', ')})`;
  await db.driver.query(
    sql,
    names.map((n) => rows.map((row) => row[n as keyof C])),
  );
}

async function seedInBulk(db: Database, deps: DomainDeps, clock: SeedClock, plan: Plan, progress: Progress): Promise<Seeded> {
  const orderIds: string[] = [];
  const stored: Seeded['rows'] = [];
  let events = 0;
  let inflight: Promise<void> = Promise.resolve();
  const every = Math.max(BATCH_ORDERS, Math.round(plan.orders.length / 20 / BATCH_ORDERS) * BATCH_ORDERS);

  for (let start = 0; start < plan.orders.length; start += BATCH_ORDERS) {
    const quotes: Row<typeof QUOTE_COLUMNS>[] = [];
    const intents: Row<typeof INTENT_COLUMNS>[] = [];
    const orders: Row<typeof ORDER_COLUMNS>[] = [];
    for (const order of plan.orders.slice(start, start + BATCH_ORDERS)) {
      const { route } = order;
      const requests = requestsOf(order);
      const { commitmentHash } = requests;
      clock.at(order.createdAt - order.quoteLead);
      const quote = await priceQuote(deps, requests.quote);
      clock.at(order.createdAt);
      const request = requests.order(quote.id, BigInt(String(quote.destAmount)));
      const orderId = randomBytes(32).toString('hex');
      const stored_quote = {
        ...quote,
        sourceTokenPrice: new Prisma.Decimal(String(quote.sourceTokenPrice)),
        destTokenPrice: new Prisma.Decimal(String(quote.destTokenPrice)),
        consumedBy: orderId,
      } as unknown as Quote;
      const pair = resolvePair(deps, route.source.id, route.destination.id);
      const built = buildOrder(deps, request, stored_quote, pair, orderId, requestFingerprint(request), new Date(order.createdAt * 1000));
      const data = built.order;
      const [sourceIntent, destinationIntent] = built.intents;

      // The escrow events, applied as recordEscrowEvent would, in the order the watcher reports them.
      const createdAt = new Date(order.createdAt * 1000);
      const escrow = (intent: Prisma.IntentCreateManyInput): EscrowRecord => ({
        side: intent.side,
        commitmentHash: intent.commitmentHash,
        commitment: null,
        updatedAt: createdAt,
        createTxHash: null,
        createBlockNumber: null,
        createTimestamp: null,
        claimTxHash: null,
        claimBlockNumber: null,
        claimTimestamp: null,
        cancelTxHash: null,
        cancelBlockNumber: null,
        cancelTimestamp: null,
      });
      const deadlineAt = data.deadlineAt as Date;
      let escrows = { deadlineAt, source: escrow(sourceIntent), destination: escrow(destinationIntent) };
      let stage: Stage = 'pending';
      let updatedAt = createdAt;
      for (const { side, seenAt, event } of requests.events) {
        updatedAt = new Date(seenAt * 1000);
        const applied = applyEscrowEvent(escrows, side, event, updatedAt);
        if (!applied) throw new Error(`seed planned the same ${event.kind} twice`);
        escrows = { deadlineAt, source: applied.source, destination: applied.destination };
        stage = applied.stage;
        events++;
      }
      const { source, destination } = escrows;

      quotes.push({
        id: quote.id,
        source_asset: quote.sourceAsset,
        source_amount: text(quote.sourceAmount),
        dest_asset: quote.destAsset,
        dest_amount: text(quote.destAmount),
        source_token_price: text(quote.sourceTokenPrice),
        dest_token_price: text(quote.destTokenPrice),
        fee_bips: text(quote.feeBips),
        solver: JSON.stringify(quote.solver),
        created_at: time(quote.createdAt as Date),
        expires_at: time(quote.expiresAt as Date),
        consumed_by: orderId,
      });
      for (const [intent, facts] of [
        [sourceIntent, source],
        [destinationIntent, destination],
      ] as const) {
        intents.push({
          swap_id: intent.swapId,
          side: intent.side,
          chain: intent.chain,
          asset: intent.asset,
          token_address: intent.tokenAddress,
          creator: intent.creator,
          recipient: intent.recipient,
          amount: text(intent.amount as string),
          commitment_hash: intent.commitmentHash,
          commitment: facts.commitment,
          cancel_after: text(intent.cancelAfter as bigint),
          registry_address: intent.registryAddress ?? null,
          create_tx_hash: facts.createTxHash,
          create_block_number: text(facts.createBlockNumber),
          create_timestamp: time(facts.createTimestamp),
          claim_tx_hash: facts.claimTxHash,
          claim_block_number: text(facts.claimBlockNumber),
          claim_timestamp: time(facts.claimTimestamp),
          cancel_tx_hash: facts.cancelTxHash,
          cancel_block_number: text(facts.cancelBlockNumber),
          cancel_timestamp: time(facts.cancelTimestamp),
          created_at: time(createdAt),
          updated_at: time(facts.updatedAt),
        });
      }
      orders.push({
        id: orderId,
        user_id: data.userId,
        quote_id: quote.id,
        source_token_price: text(quote.sourceTokenPrice),
        dest_token_price: text(quote.destTokenPrice),
        fee_bips: text(data.feeBips),
        commitment_hash: commitmentHash,
        request_hash: data.requestHash,
        stage,
        deadline_at: time(deadlineAt),
        dest_expires_at: time(data.destExpiresAt as Date),
        source_chain: data.sourceChain,
        dest_chain: data.destChain,
        source_asset: data.sourceAsset,
        dest_asset: data.destAsset,
        volume_usd: text(data.volumeUsd as string),
        completed_at: time(destination.claimTimestamp),
        source_swap_id: sourceIntent.swapId,
        destination_swap_id: destinationIntent.swapId,
        created_at: time(createdAt),
        updated_at: time(updatedAt),
      });
      orderIds.push(orderId);
      stored.push({ stage, deadlineAt, destExpiresAt: data.destExpiresAt as Date });
    }
    // Build the next batch while this one is written; intents before the orders that reference them.
    await inflight;
    const done = Math.min(start + BATCH_ORDERS, plan.orders.length);
    const eventsSoFar = events;
    inflight = (async () => {
      await insertRows(db, 'quotes', QUOTE_COLUMNS, quotes);
      await insertRows(db, 'intents', INTENT_COLUMNS, intents);
      await insertRows(db, 'orders', ORDER_COLUMNS, orders);
      if (done % every === 0 || done === plan.orders.length) progress(done, eventsSoFar);
    })();
  }
  await inflight;
  // Fresh planner statistics and visibility map after a bulk load, as after any large import.
  await db.driver.exec('VACUUM ANALYZE quotes, intents, orders, stats_hourly, stats_pairs, stats_assets, stats_users');
  return { orderIds, rows: stored, events };
}

// ---------------------------------------------------------------------------------------------
// Command line

const USAGE = `usage: npm run seed -- [--orders N] [--users N] [--days N] [--seed S] [--mode bulk|domain]
  --orders N   orders to create (default ${SEED_DEFAULTS.orders})
  --users N    distinct users placing them (default ${SEED_DEFAULTS.users})
  --days N     spread created_at over the past N days (default ${SEED_DEFAULTS.days})
  --seed S     seed of the pseudo-random plan (default ${SEED_DEFAULTS.seed})
  --mode M     bulk (default): the domain's rows in batched array inserts, fast enough for millions;
               domain: every quote, order and escrow event through the domain calls, one at a time
The database is DATABASE_URL (PostgreSQL, migrated first) or else the embedded PGlite in DATA_DIR (default ./data).`;

function parseCli(argv: string[]): Pick<SeedOptions, 'orders' | 'users' | 'days' | 'seed' | 'mode'> {
  const { values } = parseArgs({
    args: argv,
    options: {
      orders: { type: 'string' },
      users: { type: 'string' },
      days: { type: 'string' },
      seed: { type: 'string' },
      mode: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const integer = (name: string, text: string | undefined, fallback: number) => {
    if (text === undefined) return fallback;
    if (!/^\d+$/.test(text) || Number(text) < 1 || !Number.isSafeInteger(Number(text))) {
      throw new UsageError(`--${name} must be a positive integer, got ${JSON.stringify(text)}`);
    }
    return Number(text);
  };
  let days: number = SEED_DEFAULTS.days;
  if (values.days !== undefined) {
    days = Number(values.days);
    if (!/^\d+(\.\d+)?$/.test(values.days) || !(days > 0)) {
      throw new UsageError(`--days must be a positive number, got ${JSON.stringify(values.days)}`);
    }
  }
  return {
    orders: integer('orders', values.orders, SEED_DEFAULTS.orders),
    users: integer('users', values.users, SEED_DEFAULTS.users),
    days,
    seed: values.seed ?? SEED_DEFAULTS.seed,
    mode: mode(values.mode),
  };
}

function mode(value: string | undefined): SeedOptions['mode'] {
  if (value === undefined || value === 'bulk' || value === 'domain') return value;
  throw new UsageError(`--mode must be bulk or domain, got ${JSON.stringify(value)}`);
}

class UsageError extends Error {}

async function main(): Promise<void> {
  let cli: ReturnType<typeof parseCli>;
  let config: Config;
  try {
    cli = parseCli(process.argv.slice(2));
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`${(error as Error).message}\n${error instanceof ConfigError ? '' : `${USAGE}\n`}`);
      process.exit(2);
    }
    throw error;
  }
  const where = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite in ${config.dataDir}`;
  console.log(`opening ${where}`);
  const db = config.databaseUrl
    ? await openPostgres({
        url: config.databaseUrl,
        migrate: true,
        timeouts: bulkTimeouts(config),
        onPoolError: (err) => process.stderr.write(`database pool error: ${err.message}\n`),
      })
    : await openPglite(config.dataDir);
  try {
    const result = await seed({ db, config, ...cli, log: (line) => console.log(line) });
    if (result.mismatches > 0) process.exitCode = 1;
    console.log(
      `a running server shows the new figures on /stats once its cache expires (STATS_CACHE_SECONDS=${config.statsCacheSeconds})`,
    );
  } finally {
    await db.close();
  }
}

/**
 * A bulk insert is no request: unless DATABASE_STATEMENT_TIMEOUT_MS / DATABASE_QUERY_TIMEOUT_MS are set,
 * a seed's statement may run ten minutes (a request's 5 s fails a large batch on a busy machine).
 */
function bulkTimeouts(config: Config): Config['database'] {
  if (process.env.DATABASE_STATEMENT_TIMEOUT_MS || process.env.DATABASE_QUERY_TIMEOUT_MS) return config.database;
  return { ...config.database, statementTimeoutMs: 600_000, queryTimeoutMs: 660_000 };
}

const invokedDirectly = (() => {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
})();

if (invokedDirectly) {
  main().catch((error: unknown) => {
    process.stderr.write(`seed failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
