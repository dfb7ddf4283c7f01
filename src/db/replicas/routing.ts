import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { StatsStore } from '../../domain/stats.ts';
import type { OffsetPage, OrdersStore } from '../orders-store.ts';
import type { RowStore } from '../row-store.ts';
import type { ReplicaSet } from './health.ts';
import type { WriterWindow } from './writer-window.ts';

/**
 * Reads that tolerate a little lag (order lists, statistics) go to streaming replicas
 * (DATABASE_REPLICA_URL); everything else stays on the primary (README, Deployment). The rules:
 *
 * - A replica is used only while its last check found it up and at most REPLICA_MAX_LAG_MS behind the
 *   primary. The check (every REPLICA_CHECK_MS) samples the primary's WAL position, then asks each
 *   replica what it has replayed: a replica that replayed the sample taken at time T has every commit
 *   made before T. Comparing positions, not pg_last_xact_replay_timestamp(), keeps an idle primary from
 *   looking like a lagging replica.
 * - A query that cannot reach the replica (stopped, restarted, cut) is sent to the primary at once and
 *   the replica is skipped until a check finds it again: the request does not fail.
 * - A client that wrote (same API key, else same IP) reads from the primary for READ_YOUR_WRITES_MS,
 *   on every instance when Redis is configured: its new order is in its lists. That window is at least
 *   the lag bound plus a check period, so afterwards every replica in use has the write.
 * - A read by id that the replica answers with nothing is read again on the primary: an order read
 *   straight after its creation is never a 404.
 */

/** What a read runs on: Prisma Client and the row store of one database. */
export interface ReadTarget {
  prisma: PrismaClient;
  rows: RowStore;
  orders: OrdersStore;
  stats: StatsStore;
  /** The replica's name (its host:port), undefined for the primary. */
  replica?: string;
}

/** Per request: where its lag-tolerant reads go, decided once, on first use. */
export interface RequestReads {
  /** Lists and statistics: a usable replica unless this client wrote recently, else the primary. */
  lagTolerant(): Promise<ReadTarget>;
  /**
   * A read by id: on the replica when lists would go there; a miss is read again on the primary, and
   * the request's later reads (the order's intents) then stay on the primary too.
   */
  byId<T>(read: (target: ReadTarget) => Promise<T | null>): Promise<T | null>;
  /** This request wrote: the client's reads stay on the primary for the window. */
  wrote(): void;
  /**
   * Every later read of this request on the primary: a subscription keeps its request for hours and
   * pushes changes as they commit, which a replica may not have replayed yet.
   */
  pinPrimary(): void;
}

export interface ReadRouting {
  forRequest(client: string | undefined): RequestReads;
}

export function createReadRouting(primary: ReadTarget, replicas: ReplicaSet | undefined, writers: WriterWindow | undefined): ReadRouting {
  return {
    forRequest(client) {
      let chosen: Promise<ReadTarget> | undefined;
      const lagTolerant = () => {
        chosen ??= (async () => {
          const node = replicas?.pick();
          if (!node) return primary;
          if (client !== undefined && writers && (await writers.wroteRecently(client))) return primary;
          return node.target;
        })();
        return chosen;
      };
      return {
        lagTolerant,
        async byId(read) {
          const target = await lagTolerant();
          const found = await read(target);
          if (found !== null || target === primary) return found;
          chosen = Promise.resolve(primary);
          return read(primary);
        },
        wrote() {
          if (client !== undefined) writers?.mark(client);
        },
        pinPrimary() {
          chosen = Promise.resolve(primary);
        },
      };
    },
  };
}

/** Reads on the primary only: no replicas configured, PGlite, scripts. */
export function primaryOnly(primary: ReadTarget): ReadRouting {
  return createReadRouting(primary, undefined, undefined);
}

/**
 * The orders store a request reads through: pages and counts where its lag-tolerant reads go, one
 * order by id on the replica with the primary behind it (an order just created is never a 404).
 */
export function routedOrdersStore(reads: RequestReads, primary: OrdersStore): OrdersStore {
  return {
    client: primary.client,
    byId: (id, options) => reads.byId((target) => target.orders.byId(id, options)),
    offsetPage(set, pagination, options) {
      let page: Promise<OffsetPage> | undefined;
      const pageOn = () => (page ??= reads.lagTolerant().then((target) => target.orders.offsetPage(set, pagination, options)));
      return {
        ...pagination,
        rows: async () => (await pageOn()).rows(),
        total: async () => (await pageOn()).total(),
      };
    },
    keysetPage: async (set, range, options) => (await reads.lagTolerant()).orders.keysetPage(set, range, options),
    count: async (set) => (await reads.lagTolerant()).orders.count(set),
    userPageJson: async (...args) => (await reads.lagTolerant()).orders.userPageJson(...args),
  };
}
