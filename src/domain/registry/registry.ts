import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { PROJECT_ROOT } from '../../paths.ts';
import { isValidAddress, normalizeAddress, type AddressChain } from '../addresses.ts';
import { isAmountString, isPositiveDecimalString, normalizeDecimal } from '../amounts.ts';

/**
 * The asset registry: the chains the order book settles on and the assets it quotes.
 * The shipped default sits beside this file; ASSETS_FILE replaces it. A file is checked for shape
 * (zod) and then for consistency (chains exist, ids match, addresses are valid for their chain),
 * and every problem is reported at once, each with its path.
 *
 * Chains and assets keep the snake_case field names of the file: GET /chains and GET /assets
 * return them as they are.
 */

export type ChainKind = 'evm' | 'bitcoin' | 'solana';
export type Network = 'mainnet' | 'testnet';

export interface Chain {
  readonly id: string;
  readonly name: string;
  readonly kind: ChainKind;
  readonly network: Network;
  /** EVM chain id (EIP-155); EVM chains only. */
  readonly chain_id?: number;
  /** The solver's address on this chain: it receives source escrows and funds destination ones. */
  readonly solver: string;
  /** The escrow contract or program; null where escrows are scripts (Bitcoin HTLCs). */
  readonly registry_address: string | null;
  /** Lifetime of a user's source escrow on this chain. */
  readonly source_timelock_secs: number;
  /** Lifetime of the solver's destination escrow on this chain; shorter than any source lifetime. */
  readonly destination_timelock_secs: number;
  /**
   * EVM only: a JSON-RPC endpoint. With it (and registry_address), the chain is watched and claimed
   * on for real (src/chains/evm/); without it, the simulated chain stands in. Never served by the API
   * (it may hold a provider key).
   */
  readonly rpc_url?: string;
  /** EVM only: blocks on top of an event's block before it is trusted (default in src/chains/evm/chain-config.ts). */
  readonly confirmations?: number;
  /** EVM only: where the watcher starts reading the escrow's events on a new database (the deployment block). */
  readonly start_block?: number;
}

export interface Asset {
  /** `${chain}:${token}`, lowercase, e.g. "ethereum:wbtc". */
  readonly id: string;
  readonly chain: string;
  readonly symbol: string;
  readonly decimals: number;
  /** Token contract or mint; the zero address for EVM native coins, "primary" for BTC and SOL. */
  readonly token_address: string;
  /** Base units, integer strings. */
  readonly min_amount: string;
  readonly max_amount: string;
  /** Static USD price, a decimal string in its shortest spelling ("1", not "1.00"). */
  readonly price_usd: string;
}

export interface Registry {
  readonly feeBips: number;
  readonly chains: readonly Chain[];
  readonly assets: readonly Asset[];
  chain(id: string): Chain | undefined;
  asset(id: string): Asset | undefined;
}

/** Thrown for a registry that fails validation; `problems` holds one `path: message` per problem. */
export class RegistryError extends Error {
  override readonly name = 'RegistryError';
  constructor(
    readonly source: string,
    readonly problems: readonly string[],
  ) {
    super(`Invalid asset registry (${source}):\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

export const DEFAULT_REGISTRY_FILE = new URL('src/domain/registry/default-registry.json', PROJECT_ROOT);

/** The token_address of a chain's own coin where it has no contract (BTC, SOL). */
export const PRIMARY_TOKEN = 'primary';

/**
 * The shipped default (no argument), a JSON file at a path (ASSETS_FILE), or an already parsed
 * object (tests). Throws RegistryError listing every problem.
 */
export function loadRegistry(source?: string | object): Registry {
  if (source === undefined) return buildRegistry(readJson(DEFAULT_REGISTRY_FILE, 'default registry'), 'default registry');
  if (typeof source === 'string') return buildRegistry(readJson(source, source), source);
  return buildRegistry(source, 'object');
}

function readJson(file: string | URL, label: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new RegistryError(label, [`cannot read the file: ${(error as Error).message}`]);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new RegistryError(label, [`not valid JSON: ${(error as Error).message}`]);
  }
}

// Identifiers as the API accepts them (see assetId, src/domain/input.ts): lowercase, no colon.
const CHAIN_ID = /^[a-z0-9_-]+$/;
const ASSET_ID = /^([a-z0-9_-]+):([a-z0-9_.-]+)$/;

const nonEmpty = z.string().regex(/^\S(?:.*\S)?$/, 'must be a non-empty string without surrounding spaces');
const seconds = (fallback: number) => z.number().int('must be a whole number of seconds').positive('must be positive').default(fallback);
const amount = z.string().refine(isAmountString, 'must be a positive integer string in base units, below 2^256');

const documentSchema = z.strictObject({
  fee_bips: z.number().int('must be an integer').min(0, 'must be at least 0').max(9999, 'must be below 10000'),
  chains: z.array(z.unknown()).min(1, 'must list at least one chain'),
  assets: z.array(z.unknown()).min(1, 'must list at least one asset'),
});

const chainSchema = z.strictObject({
  id: z.string().regex(CHAIN_ID, 'must be lowercase letters, digits, "_" or "-"'),
  name: nonEmpty,
  kind: z.enum(['evm', 'bitcoin', 'solana']),
  network: z.enum(['mainnet', 'testnet']),
  chain_id: z.number().int('must be an integer').positive('must be positive').optional(),
  solver: nonEmpty,
  registry_address: nonEmpty.nullable().default(null),
  source_timelock_secs: seconds(86_400),
  destination_timelock_secs: seconds(43_200),
  rpc_url: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).optional(),
  confirmations: z.number().int('must be an integer').min(1, 'must be at least 1 (the event block itself)').optional(),
  start_block: z.number().int('must be an integer').min(0, 'must be at least 0').optional(),
});

const assetSchema = z.strictObject({
  id: nonEmpty,
  chain: nonEmpty,
  symbol: nonEmpty,
  decimals: z.number().int('must be an integer').min(0, 'must be at least 0').max(255, 'must be at most 255'),
  token_address: nonEmpty,
  min_amount: amount,
  max_amount: amount,
  // Shortest spelling, as a NUMERIC column gives it back: a quote's price then equals GET /assets'.
  price_usd: z.string().refine(isPositiveDecimalString, 'must be a positive decimal string such as "64250.12"').transform(normalizeDecimal),
});

type Path = readonly PropertyKey[];

function formatPath(path: Path): string {
  return path.reduce<string>(
    (text, key) => (typeof key === 'number' ? `${text}[${key}]` : text === '' ? String(key) : `${text}.${String(key)}`),
    '',
  );
}

class Problems {
  readonly list: string[] = [];
  add(path: Path, message: string): void {
    this.list.push(`${formatPath(path) || '(root)'}: ${message}`);
  }
  parse<T>(schema: z.ZodType<T>, value: unknown, path: Path): T | undefined {
    const result = schema.safeParse(value);
    if (result.success) return result.data;
    for (const issue of result.error.issues) this.add([...path, ...issue.path], issue.message);
    return undefined;
  }
}

type DocumentFields = z.output<typeof documentSchema>;
type ChainFields = z.output<typeof chainSchema>;
type AssetFields = z.output<typeof assetSchema>;

/**
 * The fields of an entry that pass their own schema, so that the cross-checks still run on an
 * entry with some bad fields, and every problem of a file is reported in one go.
 */
function validFields<T>(schema: z.ZodObject, value: unknown): Partial<T> {
  const fields: Record<string, unknown> = {};
  if (typeof value !== 'object' || value === null) return fields as Partial<T>;
  for (const [key, field] of Object.entries(schema.shape)) {
    const result = field.safeParse((value as Record<string, unknown>)[key]);
    if (result.success && result.data !== undefined) fields[key] = result.data;
  }
  return fields as Partial<T>;
}

function buildRegistry(raw: unknown, label: string): Registry {
  const problems = new Problems();
  const document = problems.parse(documentSchema, raw, []) ?? validFields<DocumentFields>(documentSchema, raw);

  const chains = new Map<string, Chain>();
  // Every chain id mentioned, valid or not: an asset on a broken chain is not also an orphan.
  const chainIds = new Set<string>();
  // The address rules of every chain whose kind and network are known, broken or not.
  const chainRules = new Map<string, AddressChain>();
  const evmChainIds = new Map<number, string>();
  const timelocks: { index: number; chain: Partial<ChainFields> }[] = [];
  (document.chains ?? []).forEach((value, index) => {
    const path = ['chains', index];
    const parsed = problems.parse(chainSchema, value, path);
    const fields = parsed ?? validFields<ChainFields>(chainSchema, value);
    const addresses = checkChain(fields, hasField(value, 'chain_id'), path, problems);
    timelocks.push({ index, chain: fields });

    const rawId = (value as { id?: unknown } | null)?.id;
    if (typeof rawId === 'string' && chainIds.has(rawId)) problems.add([...path, 'id'], `duplicate chain id "${rawId}"`);
    if (typeof rawId === 'string' && !chainIds.has(rawId)) {
      chainIds.add(rawId);
      const { kind, network } = fields;
      if (kind !== undefined && network !== undefined) chainRules.set(rawId, { kind, network, name: `${kind} ${network}` });
    }
    if (fields.chain_id !== undefined) {
      const other = evmChainIds.get(fields.chain_id);
      if (other !== undefined) problems.add([...path, 'chain_id'], `duplicate chain_id ${fields.chain_id} (also on "${other}")`);
      evmChainIds.set(fields.chain_id, fields.id ?? String(rawId));
    }
    if (parsed && addresses && !chains.has(parsed.id)) chains.set(parsed.id, toChain(parsed, addresses));
  });
  checkTimelocks(timelocks, problems);

  const assets = new Map<string, Asset>();
  const assetIds = new Set<string>();
  (document.assets ?? []).forEach((value, index) => {
    const path = ['assets', index];
    const parsed = problems.parse(assetSchema, value, path);
    const fields = parsed ?? validFields<AssetFields>(assetSchema, value);
    const tokenAddress = checkAsset(fields, chainRules, chainIds, path, problems);
    if (fields.id !== undefined && assetIds.has(fields.id)) problems.add([...path, 'id'], `duplicate asset id "${fields.id}"`);
    if (fields.id !== undefined) assetIds.add(fields.id);
    if (parsed && tokenAddress !== undefined && !assets.has(parsed.id)) {
      assets.set(parsed.id, Object.freeze({ ...parsed, token_address: tokenAddress }));
    }
  });

  if (problems.list.length > 0 || document.fee_bips === undefined) throw new RegistryError(label, problems.list);
  const chainList = Object.freeze([...chains.values()]);
  const assetList = Object.freeze([...assets.values()]);
  return Object.freeze({
    feeBips: document.fee_bips,
    chains: chainList,
    assets: assetList,
    chain: (id: string) => chains.get(id),
    asset: (id: string) => assets.get(id),
  });
}

interface ChainAddresses {
  solver: string;
  registry_address: string | null;
}

/** chain_id only and always on EVM chains; solver and escrow valid on the chain (returned canonical). */
function checkChain(chain: Partial<ChainFields>, declaresChainId: boolean, path: Path, problems: Problems): ChainAddresses | undefined {
  const { kind, network } = chain;
  // A chain_id that is there but malformed was reported by the schema already.
  if (kind === 'evm' && !declaresChainId) {
    problems.add([...path, 'chain_id'], 'is required for an evm chain');
  }
  if (kind !== undefined && kind !== 'evm' && chain.chain_id !== undefined) {
    problems.add([...path, 'chain_id'], `is only for evm chains, not ${kind}`);
  }
  for (const field of ['rpc_url', 'confirmations', 'start_block'] as const) {
    if (kind !== undefined && kind !== 'evm' && chain[field] !== undefined) {
      problems.add([...path, field], `is only for evm chains, not ${kind}`);
    }
  }
  if (kind === undefined || network === undefined) return undefined;
  const target: AddressChain = { kind, network, name: `${kind} ${network}` };
  const solver = chain.solver === undefined ? undefined : checkAddress(target, chain.solver, [...path, 'solver'], problems);
  const registryAddress =
    chain.registry_address === undefined || chain.registry_address === null
      ? chain.registry_address
      : checkAddress(target, chain.registry_address, [...path, 'registry_address'], problems);
  if (solver === undefined || registryAddress === undefined) return undefined;
  return { solver, registry_address: registryAddress };
}

const hasField = (value: unknown, key: string): boolean =>
  typeof value === 'object' && value !== null && (value as Record<string, unknown>)[key] !== undefined;

function toChain(parsed: ChainFields, addresses: ChainAddresses): Chain {
  const { chain_id, ...fields } = parsed;
  const chain: Chain = { ...fields, ...addresses };
  return Object.freeze(parsed.kind === 'evm' && chain_id !== undefined ? { ...chain, chain_id } : chain);
}

/** A valid address for the chain, in its canonical form; undefined (and reported) otherwise. */
function checkAddress(chain: AddressChain, address: string, path: Path, problems: Problems): string | undefined {
  if (isValidAddress(chain, address)) return normalizeAddress(chain, address);
  problems.add(path, `must be a valid ${chain.kind} ${chain.network} address, got "${address}"`);
  return undefined;
}

/**
 * Any source escrow must outlive any destination escrow it can be paired with (same network):
 * the solver must be able to claim the source after the user claims the destination.
 */
function checkTimelocks(chains: readonly { index: number; chain: Partial<ChainFields> }[], problems: Problems): void {
  const longestDestination = new Map<Network, number>();
  for (const { chain } of chains) {
    if (chain.network === undefined || chain.destination_timelock_secs === undefined) continue;
    const longest = longestDestination.get(chain.network) ?? 0;
    longestDestination.set(chain.network, Math.max(longest, chain.destination_timelock_secs));
  }
  for (const { index, chain } of chains) {
    if (chain.network === undefined || chain.source_timelock_secs === undefined) continue;
    const longest = longestDestination.get(chain.network) ?? 0;
    if (chain.source_timelock_secs <= longest) {
      problems.add(
        ['chains', index, 'source_timelock_secs'],
        `must exceed every destination_timelock_secs on ${chain.network} (the longest is ${longest})`,
      );
    }
  }
}

/** Id matches chain, min <= max, chain listed, token address valid there; returns the canonical token address. */
function checkAsset(
  asset: Partial<AssetFields>,
  chains: ReadonlyMap<string, AddressChain>,
  chainIds: ReadonlySet<string>,
  path: Path,
  problems: Problems,
): string | undefined {
  if (asset.id !== undefined && asset.chain !== undefined) {
    const match = ASSET_ID.exec(asset.id);
    if (!match || match[1] !== asset.chain) {
      problems.add(
        [...path, 'id'],
        `must be "${asset.chain}:<token>" (its chain, a colon and a lowercase token of letters, digits, "_", "." or "-"), got "${asset.id}"`,
      );
    }
  }
  if (asset.min_amount !== undefined && asset.max_amount !== undefined) {
    if (BigInt(asset.min_amount) > BigInt(asset.max_amount)) {
      problems.add([...path, 'min_amount'], `must not exceed max_amount (${asset.max_amount})`);
    }
  }
  if (asset.chain === undefined) return undefined;
  const chain = chains.get(asset.chain);
  if (!chain) {
    if (!chainIds.has(asset.chain)) problems.add([...path, 'chain'], `unknown chain "${asset.chain}" (not in chains)`);
    return undefined;
  }
  const token = asset.token_address;
  if (token === undefined) return undefined;
  if (chain.kind === 'bitcoin') {
    if (token === PRIMARY_TOKEN) return token;
    problems.add([...path, 'token_address'], `must be "${PRIMARY_TOKEN}" on a bitcoin chain`);
    return undefined;
  }
  if (chain.kind === 'solana' && token === PRIMARY_TOKEN) return token;
  return checkAddress(chain, token, [...path, 'token_address'], problems);
}
