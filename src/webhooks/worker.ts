import type { Logger } from 'pino';
import { Webhook } from 'standardwebhooks';
import type { Config } from '../config.ts';
import { clockTurnAtSql, clockTurnTimesSql, clockTurnedSql, statusSql } from '../domain/status/rule.ts';
import { Prisma, type PrismaClient } from '../generated/prisma/client.ts';
import { PollingLoop } from '../polling-loop.ts';
import { isoSeconds } from '../domain/input.ts';
import { newIdSql } from '../domain/webhook-events.ts';
import { postWebhook, type SendResult } from './target.ts';

/** Renders an event's `data`: the order or the claim as REST returns it. */
export type RenderEvent = (event: { type: string; orderId: string; status: string; previousStatus: string | null }) => Promise<unknown>;

export interface WebhookWorkerOptions {
  prisma: PrismaClient;
  logger: Logger;
  settings: Config['webhooks'];
  render: RenderEvent;
  /** The clock of the status rule (the sweep decides `expired` and `refunding` with it). */
  now: () => Date;
  /** Each attempt this instance made (for the metrics). */
  onAttempt?: (endpointId: string, ok: boolean, latencyMs: number) => void;
  /** Deliveries sent at once by one instance. */
  batch?: number;
  /** The orders one step of the clock sweep covers (SWEEP_STEP). */
  sweepStep?: number;
}

interface LeasedDelivery {
  id: string;
  endpoint_id: string;
  event_id: string;
  attempts: number;
  lease_token: string;
  /** Seconds since the delivery was created, by the database clock. */
  age_secs: number;
  url: string;
  secret: string;
  previous_secret: string | null;
  type: string;
  data: unknown;
  created_at: Date;
}

/**
 * Delivers the outbox (src/domain/webhook-events.ts) with Standard Webhooks signatures.
 *
 * - Fan-out: an event becomes one delivery per endpoint that wants it, its `data` rendered once, in
 *   one statement; an order's events are fanned out in their order.
 * - Sending: a delivery is leased (database clock, token-fenced, like src/relayer/worker.ts), so one
 *   instance sends each attempt; only when no earlier delivery of the same order to the same endpoint
 *   is pending, so each endpoint hears about an order in order.
 * - Isolation: each endpoint has its own PER_ENDPOINT_IN_FLIGHT slots; a round leases only into an
 *   endpoint's free slots and does not wait for its sends, and each finished send wakes the loop, so a
 *   slow or dead endpoint holds up only its own deliveries. `stop()` waits for the sends in flight.
 * - Retries: exponential backoff with jitter, for WEBHOOK_RETRY_FOR_SECONDS; an endpoint whose every
 *   attempt failed for WEBHOOK_DISABLE_AFTER_SECONDS is disabled, with its reason.
 * - The clock sweep writes the events of clock-driven changes (`expired`, time-based `refunding`).
 */
export class WebhookWorker extends PollingLoop {
  private lastSweep = 0;
  /** Sends in flight from this instance, by endpoint. */
  private readonly sending = new Map<string, Set<Promise<void>>>();

  constructor(private readonly options: WebhookWorkerOptions) {
    super({ name: 'webhook', intervalMs: options.settings.pollMs, logger: options.logger });
  }

  /** One round that also waits for the sends it started (tests, scripts). Returns the attempts started. */
  async tick(): Promise<number> {
    const started = await this.dispatch();
    await this.settled();
    return started;
  }

  /** Resolves once no send of this instance is in flight. */
  async settled(): Promise<void> {
    while (this.sending.size > 0) await Promise.all([...this.sending.values()].flatMap((sends) => [...sends]));
  }

  override async stop(): Promise<void> {
    await super.stop();
    await this.settled();
  }

  /** The loop's round starts sends without waiting for them: no round waits for its slowest receiver. */
  protected override roundWork(): Promise<number> {
    return this.dispatch();
  }

  /** Sweep (when due), fan out, start the sends that are due. Returns the attempts started. */
  private async dispatch(): Promise<number> {
    if (Date.now() - this.lastSweep >= this.options.settings.sweepMs) {
      this.lastSweep = Date.now();
      await this.sweep();
    }
    while ((await this.fanOut()) > 0) {
      // until the outbox is empty
    }
    let sent = 0;
    for (;;) {
      const leased = await this.lease(new Map([...this.sending].map(([endpoint, sends]) => [endpoint, sends.size])));
      if (leased.length === 0) return sent;
      for (const delivery of leased) this.startSend(delivery);
      sent += leased.length;
    }
  }

  private startSend(delivery: LeasedDelivery): void {
    const sends = this.sending.get(delivery.endpoint_id) ?? new Set<Promise<void>>();
    this.sending.set(delivery.endpoint_id, sends);
    const send: Promise<void> = this.send(delivery)
      .catch((err: unknown) => this.options.logger.warn({ err, delivery: delivery.id }, 'webhook send failed'))
      .finally(() => {
        sends.delete(send);
        if (sends.size === 0) this.sending.delete(delivery.endpoint_id);
        // The endpoint has free slots again: its next deliveries need not wait for the poll interval.
        this.wake();
      });
    sends.add(send);
  }

  /** Fans out up to 50 events; returns how many it took. */
  async fanOut(): Promise<number> {
    const { prisma, render } = this.options;
    const events = await prisma.$queryRaw<
      { id: string; type: string; order_id: string; status: string; previous_status: string | null; wanted: boolean }[]
    >`
      SELECT e.id, e.type, e.order_id, e.status, e.previous_status,
        EXISTS (SELECT 1 FROM webhook_endpoints ep WHERE ep.disabled_at IS NULL AND e.type = ANY(ep.events)) AS wanted
      FROM webhook_events e
      WHERE e.fanned_out_at IS NULL
        AND NOT EXISTS (SELECT 1 FROM webhook_events p WHERE p.order_id = e.order_id AND p.seq < e.seq AND p.fanned_out_at IS NULL)
      ORDER BY e.seq LIMIT 50`;
    const fanOutSql = (ids: string[], json: string | null) => prisma.$executeRaw`
        WITH e AS (
          UPDATE webhook_events SET data = ${json}::jsonb, fanned_out_at = clock_timestamp()
          WHERE id = ANY(${ids}::text[]) AND fanned_out_at IS NULL
          RETURNING id, seq, type, order_id, user_id, source_chain, dest_chain
        )
        INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event_seq, order_id)
        SELECT ${Prisma.raw(newIdSql('dlv'))}, ep.id, e.id, e.seq, e.order_id
        FROM e JOIN webhook_endpoints ep ON ep.disabled_at IS NULL AND e.type = ANY(ep.events)
          AND (cardinality(ep.filter_users) = 0 OR e.user_id = ANY(ep.filter_users))
          AND (cardinality(ep.filter_chains) = 0 OR e.source_chain = ANY(ep.filter_chains) OR e.dest_chain = ANY(ep.filter_chains))`;
    // The events no endpoint wanted when read have nothing to render: one statement for all of them, as one
    // each would do (a batch holds at most one event per order, the oldest not yet fanned out).
    const unwanted = events.filter((event) => !event.wanted).map((event) => event.id);
    let taken = unwanted.length > 0 ? await fanOutSql(unwanted, null) : 0;
    for (const event of events) {
      if (!event.wanted) continue;
      // Rendered outside any transaction (PGlite has one connection); two instances may both
      // render, the conditional update below lets one of them fan out.
      const data = await render({ type: event.type, orderId: event.order_id, status: event.status, previousStatus: event.previous_status });
      taken += await fanOutSql([event.id], data === null ? null : JSON.stringify(data));
    }
    return events.length === 0 ? 0 : Math.max(taken, 1);
  }

  /**
   * The clock's own changes since the last sweep, as events: one sweeper at a time (row lock). The changes
   * are written in steps of about `sweepStep` orders, each step a transaction that moves the mark, so a
   * backlog (after an outage, or when many deadlines fall together) is worked off step by step, never in one
   * transaction too large to finish in time. Also drops events a day after fan-out when no endpoint wanted
   * them, so the outbox does not grow with the order book. Returns the events written.
   */
  async sweep(): Promise<number> {
    const now = this.options.now();
    const unwantedBefore = new Date(now.getTime() - OUTBOX_RETENTION_MS);
    await this.options.prisma.$executeRaw`
      DELETE FROM webhook_events WHERE id IN (
        SELECT e.id FROM webhook_events e
        WHERE e.fanned_out_at < ${unwantedBefore} AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id)
        LIMIT 10000)`;
    let written = 0;
    for (;;) {
      const step = await this.sweepStep(now);
      written += step.written;
      if (step.caughtUp) return written;
    }
  }

  /** One step of the sweep: the changes from the mark up to `now`, or up to where a step's worth of them ends. */
  private sweepStep(now: Date): Promise<{ written: number; caughtUp: boolean }> {
    const step = this.options.sweepStep ?? SWEEP_STEP;
    return this.options.prisma.$transaction(async (tx) => {
      const [mark] = await tx.$queryRaw<{ swept_until: Date }[]>`
        SELECT swept_until FROM webhook_sweeps WHERE name = 'clock' FOR UPDATE`;
      if (!mark) {
        // The first sweep starts now: orders that turned before webhooks existed are not announced.
        await tx.$executeRaw`INSERT INTO webhook_sweeps (name, swept_until) VALUES ('clock', ${now}) ON CONFLICT DO NOTHING`;
        return { written: 0, caughtUp: true };
      }
      const from = mark.swept_until;
      if (now <= from) return { written: 0, caughtUp: true };
      const [end] = await tx.$queryRawUnsafe<{ until: Date | null }[]>(CLOCK_STEP_END_SQL, from, now, step);
      const until = end?.until ?? now;
      // Each step ends after the mark (see CLOCK_STEP_END_SQL); were it not to, stop rather than loop.
      if (until <= from) throw new Error(`clock sweep made no progress past ${from.toISOString()}`);
      const written = await tx.$executeRawUnsafe(CLOCK_EVENTS_SQL, from, until);
      await tx.$executeRaw`UPDATE webhook_sweeps SET swept_until = ${until} WHERE name = 'clock'`;
      return { written, caughtUp: until >= now };
    });
  }

  /**
   * Due deliveries, each endpoint's oldest first, up to its free slots (PER_ENDPOINT_IN_FLIGHT less its
   * sends in flight here, `sending`). Each endpoint's are read from the (endpoint_id, state, next_attempt_at,
   * event_seq) index and the read stops at its free slots, so a lease costs the same with a backlog of
   * thousands as with none.
   */
  private lease(sending: Map<string, number>): Promise<LeasedDelivery[]> {
    const leaseSecs = (this.options.settings.timeoutMs + 30_000) / 1000;
    const batch = this.options.batch ?? 20;
    return this.options.prisma.$queryRaw<LeasedDelivery[]>`
      WITH leased AS (
        UPDATE webhook_deliveries d
        SET lease_until = clock_timestamp() + make_interval(secs => ${leaseSecs}::double precision),
            lease_token = gen_random_uuid(), attempts = attempts + 1
        WHERE d.id IN (
          SELECT due.id FROM webhook_endpoints ep
          LEFT JOIN unnest(${[...sending.keys()]}::text[], ${[...sending.values()]}::int[]) AS busy(endpoint_id, sends)
            ON busy.endpoint_id = ep.id
          CROSS JOIN LATERAL (
            SELECT c.id, c.next_attempt_at, c.event_seq FROM webhook_deliveries c
            WHERE c.endpoint_id = ep.id AND c.state = 'pending' AND c.next_attempt_at <= clock_timestamp()
              AND (c.lease_until IS NULL OR c.lease_until < clock_timestamp())
              AND NOT EXISTS (
                SELECT 1 FROM webhook_deliveries p
                WHERE p.endpoint_id = c.endpoint_id AND p.order_id = c.order_id AND p.event_seq < c.event_seq AND p.state = 'pending')
            ORDER BY c.next_attempt_at, c.event_seq
            LIMIT ${PER_ENDPOINT_IN_FLIGHT} - coalesce(busy.sends, 0)
            FOR UPDATE OF c SKIP LOCKED) due
          WHERE ep.disabled_at IS NULL AND coalesce(busy.sends, 0) < ${PER_ENDPOINT_IN_FLIGHT}
          ORDER BY due.next_attempt_at, due.event_seq
          LIMIT ${batch})
        RETURNING d.id, d.endpoint_id, d.event_id, d.attempts, d.lease_token::text AS lease_token,
          extract(epoch FROM clock_timestamp() - d.created_at)::float8 AS age_secs
      )
      SELECT leased.*, ep.url, ep.secret,
        CASE WHEN ep.previous_secret_until > clock_timestamp() THEN ep.previous_secret END AS previous_secret,
        e.type, e.data, e.created_at
      FROM leased JOIN webhook_endpoints ep ON ep.id = leased.endpoint_id JOIN webhook_events e ON e.id = leased.event_id`;
  }

  private async send(delivery: LeasedDelivery): Promise<void> {
    const { settings, logger } = this.options;
    const body = JSON.stringify({ type: delivery.type, timestamp: isoSeconds(delivery.created_at), data: delivery.data });
    const sentAt = new Date();
    // Signed with the current secret, and during a rotation's grace period also with the previous one.
    const signatures = [delivery.secret, delivery.previous_secret]
      .filter((s): s is string => s !== null)
      .map((secret) => new Webhook(secret).sign(delivery.event_id, sentAt, body));
    const headers = {
      'webhook-id': delivery.event_id,
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
      'webhook-signature': signatures.join(' '),
    };
    const result = await postWebhook(delivery.url, body, headers, {
      timeoutMs: settings.timeoutMs,
      allowPrivate: settings.allowPrivateTargets,
    });
    const ok = result.statusCode !== undefined && result.statusCode >= 200 && result.statusCode < 300;
    const recorded = await this.settle(delivery, sentAt, result, ok);
    this.options.onAttempt?.(delivery.endpoint_id, ok, result.latencyMs);
    const log = logger.child({ delivery: delivery.id, endpoint: delivery.endpoint_id, attempt: delivery.attempts });
    if (!recorded) log.warn('webhook lease lost while sending; another instance took the delivery over');
    else if (!ok) log.info({ status: result.statusCode, error: result.error, latencyMs: result.latencyMs }, 'webhook attempt failed');
  }

  /** Records the attempt and its outcome, only while this worker still holds the lease. */
  private async settle(delivery: LeasedDelivery, sentAt: Date, result: SendResult, ok: boolean): Promise<boolean> {
    const { prisma, settings } = this.options;
    const giveUp = !ok && delivery.age_secs >= settings.retryForSeconds;
    const delayMs = ok || giveUp ? 0 : retryDelayMs(delivery.attempts, settings);
    // The last retry lands at the end of the retry window, not past it.
    const untilEnd = Math.max(0, settings.retryForSeconds * 1000 - delivery.age_secs * 1000);
    const nextInMs = Math.min(delayMs, untilEnd);
    const state = ok ? 'delivered' : giveUp ? 'failed' : 'pending';
    const error = result.error ?? (ok ? null : `HTTP ${result.statusCode}`);
    const count = await prisma.$executeRaw`
      WITH settled AS (
        UPDATE webhook_deliveries
        SET state = ${state}::"WebhookDeliveryState", lease_until = NULL, lease_token = NULL,
            last_status = ${result.statusCode ?? null}::int, last_error = ${error},
            delivered_at = CASE WHEN ${ok}::boolean THEN clock_timestamp() END,
            next_attempt_at = clock_timestamp() + make_interval(secs => ${nextInMs / 1000}::double precision)
        WHERE id = ${delivery.id} AND lease_token = ${delivery.lease_token}::uuid
        RETURNING id, endpoint_id
      ), logged AS (
        INSERT INTO webhook_attempts (delivery_id, attempt, started_at, status_code, latency_ms, error, response)
        SELECT id, ${delivery.attempts}, ${sentAt}, ${result.statusCode ?? null}::int, ${result.latencyMs}, ${result.error ?? null}, ${result.response ?? null}
        FROM settled
      )
      UPDATE webhook_endpoints ep
      SET failing_since = CASE WHEN ${ok}::boolean THEN NULL ELSE coalesce(ep.failing_since, ${sentAt}) END,
          disabled_at = CASE WHEN NOT ${ok}::boolean AND ep.failing_since < clock_timestamp() - make_interval(secs => ${settings.disableAfterSeconds}::double precision)
                             THEN clock_timestamp() ELSE ep.disabled_at END,
          disabled_reason = CASE WHEN NOT ${ok}::boolean AND ep.failing_since < clock_timestamp() - make_interval(secs => ${settings.disableAfterSeconds}::double precision)
                                 THEN 'every attempt failed since ' || to_char(ep.failing_since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') || '; last: ' || ${error ?? ''}
                                 ELSE ep.disabled_reason END
      FROM settled WHERE ep.id = settled.endpoint_id`;
    return count === 1;
  }
}

/**
 * The events of the orders the clock turned after the mark ($1) until $2, in the order they turned: one
 * statement, the rows never leave the database.
 */
const CLOCK_EVENTS_SQL = `
  INSERT INTO webhook_events (id, type, order_id, user_id, source_chain, dest_chain, status, previous_status)
  SELECT ${newIdSql('msg')}, 'order.status_changed', o.id, o.user_id, o.source_chain, o.dest_chain,
    ${statusSql('o', '$2::timestamptz')}, ${statusSql('o', '$1::timestamptz')}
  FROM orders o
  WHERE webhook_event_type_wanted('order.status_changed') AND ${clockTurnedSql('o', '$1::timestamptz', '$2::timestamptz')}
  ORDER BY ${clockTurnAtSql('o')}, o.id`;

/**
 * Where a sweep step from the mark ($1) ends, when more than $3 orders turned before $2: a millisecond before
 * the turn time of the order after the first $3 (deadlines are whole seconds, so no second is split between
 * two steps); when that order turned in the step's first second, at that second (one second's orders, however
 * many). NULL: up to $2.
 */
const CLOCK_STEP_END_SQL = `
  SELECT CASE WHEN count(*) <= $3::int THEN NULL
              WHEN min(at) = max(at) THEN max(at)
              ELSE max(at) - interval '1 millisecond' END AS until
  FROM (SELECT at FROM (${clockTurnTimesSql('o', '$1::timestamptz', '$2::timestamptz', '$3::int + 1')}) AS parts
        ORDER BY at LIMIT $3::int + 1) AS turns`;

/** The orders one sweep step covers, at most (unless more turned in one second). */
const SWEEP_STEP = 5000;

/** Sends one instance has in flight to one endpoint: a slow endpoint ties up only these. */
const PER_ENDPOINT_IN_FLIGHT = 4;

/** How long an event that no endpoint wanted stays in the outbox after its fan-out. */
const OUTBOX_RETENTION_MS = 24 * 3600 * 1000;

/** Exponential backoff with jitter: base x 2^(attempt-1), capped, then between half and all of it. */
export function retryDelayMs(attempt: number, settings: Pick<Config['webhooks'], 'retryBaseMs' | 'retryMaxMs'>): number {
  const ceiling = Math.min(settings.retryMaxMs, settings.retryBaseMs * 2 ** Math.min(attempt - 1, 30));
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

/** Outbox depth and delivery backlog, for /relayer/health. */
export async function webhookHealth(prisma: PrismaClient) {
  const [row] = await prisma.$queryRaw<
    { outbox_depth: number; pending_deliveries: number; oldest_pending_secs: number | null; disabled_endpoints: number }[]
  >`
    SELECT (SELECT count(*)::int FROM webhook_events WHERE fanned_out_at IS NULL) AS outbox_depth,
           (SELECT count(*)::int FROM webhook_deliveries WHERE state = 'pending') AS pending_deliveries,
           (SELECT extract(epoch FROM clock_timestamp() - min(created_at))::float8 FROM webhook_deliveries WHERE state = 'pending') AS oldest_pending_secs,
           (SELECT count(*)::int FROM webhook_endpoints WHERE disabled_at IS NOT NULL) AS disabled_endpoints`;
  return {
    outbox_depth: row!.outbox_depth,
    pending_deliveries: row!.pending_deliveries,
    oldest_pending_secs: row!.oldest_pending_secs === null ? null : Math.round(row!.oldest_pending_secs),
    disabled_endpoints: row!.disabled_endpoints,
  };
}
