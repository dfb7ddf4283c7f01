import type { Config } from '../../../src/config.ts';
import type { Registry } from '../../../src/domain/registry/registry.ts';
import { ORDER_STATUSES, type OrderStatus } from '../../../src/domain/status/rule.ts';
import { Rng } from './rng.ts';
import { type Route, routesFor, sourceAmount } from './routes.ts';
import { makeUsers, type SeedUser } from './users.ts';

/** What the plan depends on besides the registry, the configuration and the clock. */
export interface PlanOptions {
  /** How many orders to create. */
  orders: number;
  /** How many distinct users place them. */
  users: number;
  /** created_at is spread over the past `days` days. */
  days: number;
  /** Seed of the pseudo-random plan. */
  seed: string | number;
  /**
   * Every user places the same number of orders (round robin) instead of a few users trading a lot:
   * `--orders 200000 --users 2000 --even-users` gives 2,000 users 100 orders each, so each of their
   * pages is full (the bench's user pages, test/bench/README.md).
   */
  evenUsers?: boolean;
}

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
  options: PlanOptions,
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

  let turn = 0;
  const pickUser = options.evenUsers ? () => users[turn++ % users.length]! : rng.picker(users, (u) => u.weight);
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
