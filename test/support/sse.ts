import { expect } from 'vitest';
import { Wake } from './wake.ts';
import type { App } from '../../src/app.ts';

/** Subscriptions as a client sees them: an inbox of results, and an SSE client over the app's fetch handler. */

/** How long any single wait of a subscription test may take. */
export const WAIT_MS = 5_000;

export interface OrderView {
  orderId: string;
  userId: string;
  status: string;
  sourceIntent?: { createTxHash: string | null };
}

export interface Result {
  data?: Record<string, OrderView | null> | null;
  errors?: { message: string }[];
}

/** The order carried by one subscription result, whichever field it came in. */
export function orderOf(result: Result): OrderView | undefined {
  const data = result.data ?? {};
  return data.orderUpdated ?? data.userOrdersUpdated ?? undefined;
}

/** Results of one subscription, as they arrive; every wait is bounded. */
export class Inbox {
  private items: Result[] = [];
  private ended = false;
  private failure: unknown;
  private readonly signal = new Wake();

  push(item: Result) {
    this.items.push(item);
    this.signal.notify();
  }
  end(error?: unknown) {
    this.ended = true;
    this.failure ??= error;
    this.signal.notify();
  }
  get size() {
    return this.items.length;
  }
  /** Every result received, in order (those taken out by take() excepted). */
  all(): readonly Result[] {
    return this.items;
  }
  /** The latest result received. */
  last(): Result | undefined {
    return this.items.at(-1);
  }

  /** The first result (received or to come) whose order matches, within ms; throws otherwise. */
  async take(what: string, match: (order: OrderView) => boolean, ms = WAIT_MS): Promise<OrderView> {
    const deadline = Date.now() + ms;
    for (;;) {
      const index = this.items.findIndex((r) => {
        const order = orderOf(r);
        return order !== undefined && match(order);
      });
      if (index >= 0) {
        const [result] = this.items.splice(index, 1);
        expect(result!.errors).toBeUndefined();
        return orderOf(result!)!;
      }
      const left = deadline - Date.now();
      if (this.ended || left <= 0) {
        const why = this.ended ? `the subscription ended (${String(this.failure ?? 'complete')})` : `${ms} ms passed`;
        throw new Error(`${what}: not received, ${why}; got ${JSON.stringify(this.items)}`);
      }
      await this.signal.wait(left);
    }
  }

  /** Asserts that no result whose order matches arrives within ms (and that the subscription lives on). */
  async none(what: string, match: (order: OrderView) => boolean, ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    for (;;) {
      const hit = this.items.find((r) => {
        const order = orderOf(r);
        return order !== undefined && match(order);
      });
      if (hit) throw new Error(`${what}: received ${JSON.stringify(hit)}`);
      if (this.ended) throw new Error(`${what}: the subscription ended (${String(this.failure ?? 'complete')})`);
      const left = deadline - Date.now();
      if (left <= 0) return;
      await this.signal.wait(left);
    }
  }

  /**
   * A subscription is only listening once the server has attached it to its pubsub (and, on Redis,
   * once SUBSCRIBE is done), which the client cannot see. Probe until a probe comes through:
   * from then on nothing published can be missed. Probes re-announce an existing order unchanged.
   */
  async untilLive(probe: () => void, ms = WAIT_MS): Promise<void> {
    const deadline = Date.now() + ms;
    while (this.items.length === 0) {
      if (this.ended) throw new Error(`the subscription ended before it was live: ${String(this.failure)}`);
      if (Date.now() > deadline) throw new Error(`the subscription was not live within ${ms} ms`);
      probe();
      await this.signal.wait(50);
    }
    expect(this.items[0]!.errors).toBeUndefined();
  }
}

export interface Subscription {
  inbox: Inbox;
  /** When each keep-alive comment (a `:` line) arrived, in ms since the epoch. */
  pings: number[];
  close(): Promise<void>;
}

export function bounded<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A subscription over SSE, Yoga's default transport: through an app's fetch handler, or to a server's base URL. */
export async function subscribeSse(server: App | string, query: string, variables: Record<string, unknown>): Promise<Subscription> {
  // An app is called in-process; a base URL is a server over real HTTP.
  const send = (init: RequestInit) =>
    typeof server === 'string' ? fetch(`${server}/graphql`, init) : server.fetch('http://test/graphql', init);
  const response = await bounded(
    Promise.resolve(
      send({
        method: 'POST',
        headers: { accept: 'text/event-stream', 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      }),
    ),
    WAIT_MS,
    'SSE subscribe',
  );
  if (response.status !== 200 || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
    throw new Error(`SSE subscribe: ${response.status} ${response.headers.get('content-type')} ${await response.text()}`);
  }
  const reader = response.body!.getReader();
  const inbox = new Inbox();
  const pings: number[] = [];
  const decoder = new TextDecoder();

  // Reads the stream until it ends: "event: next" blocks carry results, ":" lines are pings.
  const pump = (async () => {
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('event:')) event = line.slice(6).trim();
            else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
          }
          if (block.startsWith(':')) pings.push(Date.now());
          else if (event === 'next') inbox.push(JSON.parse(data.join('\n')) as Result);
          else if (event === 'complete') inbox.end();
        }
      }
      inbox.end();
    } catch (error) {
      inbox.end(error);
    }
  })();

  return {
    inbox,
    pings,
    async close() {
      // Cancelling the body ends the server's iterator, which leaves the pubsub.
      await bounded(
        reader.cancel().catch(() => undefined),
        WAIT_MS,
        'SSE cancel',
      );
      await bounded(pump, WAIT_MS, 'SSE reader');
    },
  };
}
