import { GraphQLError } from 'graphql';
import { createPubSub, createSchema, createYoga, type Plugin } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { attachDirectSink, sharedSubscriptionsPlugin } from '../src/http/shared-subscriptions.ts';
import { sseResultsPlugin } from '../src/http/sse-results.ts';
import { WAIT_MS, subscribeSse } from './support/sse.ts';

/**
 * Direct delivery (src/http/shared-subscriptions.ts, DirectSink): a shared result without errors goes from
 * the shared stream to each SSE stream as it comes, past the per-subscriber async iterators that plugins wrap
 * around a stream; a result with errors goes through them, after what waited before it.
 */
describe('shared subscription results', () => {
  it('reach each subscriber past the per-result hooks, a result with errors through them, in order', async () => {
    const pubsub = createPubSub<{ tick: [number] }>();
    let perSubscriberResults = 0;
    const countsResults: Plugin = {
      onSubscribe: () => ({ onSubscribeResult: () => ({ onNext: () => void (perSubscriberResults += 1) }) }),
    };
    const yoga = createYoga({
      schema: tickSchema(pubsub),
      plugins: [sharedSubscriptionsPlugin(), sseResultsPlugin(), countsResults],
    });
    const subscribers = await Promise.all([1, 2, 3].map(() => subscribeSse(yoga as never, 'subscription { tick }', {})));
    const received = (from: number[], count: number) =>
      Promise.all(
        subscribers.map(async ({ inbox }, i) => {
          for (const deadline = Date.now() + WAIT_MS; inbox.size < from[i]! + count; await new Promise((r) => setTimeout(r, 5))) {
            if (Date.now() > deadline) throw new Error(`got ${inbox.size - from[i]!} of ${count} results`);
          }
        }),
      );
    try {
      // Live once the first tick arrives everywhere (each subscriber joins the shared stream on its own).
      for (let n = 0; subscribers.some((s) => s.inbox.size === 0); n++) {
        pubsub.publish('tick', 0);
        await new Promise((r) => setTimeout(r, 20));
        if (n > 100) throw new Error('the subscribers were not live');
      }
      const start = subscribers.map((s) => s.inbox.size);
      const hooksBefore = perSubscriberResults;
      for (const n of [1, 2]) pubsub.publish('tick', n);
      await received(start, 2);
      expect(perSubscriberResults - hooksBefore).toBe(0);

      pubsub.publish('tick', -1);
      await received(start, 3);
      // The result with errors, through each subscriber's hooks.
      expect(perSubscriberResults - hooksBefore).toBe(subscribers.length);
      // Then straight to the sockets again.
      for (const n of [3, 4]) pubsub.publish('tick', n);
      await received(start, 5);
      expect(perSubscriberResults - hooksBefore).toBe(subscribers.length);
      for (const [i, { inbox }] of subscribers.entries()) {
        const got = inbox
          .all()
          .slice(start[i])
          .map((r) => (r.errors?.length ? 'error' : (r.data as unknown as { tick: number }).tick));
        expect(got).toEqual([1, 2, 'error', 3, 4]);
      }
    } finally {
      await Promise.all(subscribers.map((s) => s.close()));
    }
  });

  it('wait while the socket is not ready, then go in order; past the limit the subscriber is dropped', async () => {
    const pubsub = createPubSub<{ tick: [number] }>();
    // A transport of our own making: results it takes directly land in `direct`, the rest in the SSE body
    // Yoga's own writer makes from the iterator.
    let open = true;
    const direct: number[] = [];
    let handle: { drain(): void } | undefined;
    const fakeSink: Plugin = {
      onResultProcess({ request }) {
        handle ??= attachDirectSink(request, {
          ready: () => open,
          deliver: (result) => direct.push((result.data as { tick: number }).tick),
        });
      },
    };
    const yoga = createYoga({
      schema: tickSchema(pubsub),
      plugins: [sharedSubscriptionsPlugin({ queueLimit: 8 }), fakeSink],
    });
    const { inbox, close } = await subscribeSse(yoga as never, 'subscription { tick }', {});
    const until = async (what: string, done: () => boolean) => {
      for (const deadline = Date.now() + WAIT_MS; !done(); await new Promise((r) => setTimeout(r, 5))) {
        if (Date.now() > deadline) throw new Error(`${what}: direct ${JSON.stringify(direct)}, iterator ${JSON.stringify(inbox.all())}`);
      }
    };
    const ticks = () =>
      inbox.all().map((r) => (r.errors?.length ? String(r.errors[0]?.message) : (r.data as unknown as { tick: number }).tick));
    try {
      for (let n = 0; direct.length === 0; n++) {
        pubsub.publish('tick', 0);
        await new Promise((r) => setTimeout(r, 20));
        if (n > 100) throw new Error('the subscriber was not live');
      }
      expect(handle).toBeDefined();
      direct.length = 0;

      open = false;
      for (const n of [1, 2]) pubsub.publish('tick', n);
      await new Promise((r) => setTimeout(r, 50));
      expect(direct).toEqual([]);
      open = true;
      handle!.drain();
      expect(direct).toEqual([1, 2]);

      // Waiting results go before a result with errors, through the iterator; then direct delivery resumes.
      open = false;
      for (const n of [3, -1]) pubsub.publish('tick', n);
      await until('3 and the error through the iterator', () => inbox.size >= 2);
      open = true;
      pubsub.publish('tick', 4);
      await until('4 directly', () => direct.includes(4));
      expect(direct).toEqual([1, 2, 4]);
      expect(ticks()).toEqual([3, 'a failed read']);

      // A socket that takes nothing: past the queue's limit, the stream ends with SLOW_CONSUMER.
      open = false;
      for (let n = 10; n < 20; n++) pubsub.publish('tick', n);
      await until('the drop', () => inbox.all().some((r) => JSON.stringify(r).includes('SLOW_CONSUMER')));
      expect(direct).toEqual([1, 2, 4]);
    } finally {
      await close();
    }
  });
});

function tickSchema(pubsub: ReturnType<typeof createPubSub<{ tick: [number] }>>) {
  return createSchema({
    typeDefs: 'type Query { ok: Boolean } type Subscription { tick: Int }',
    resolvers: {
      Subscription: {
        tick: {
          subscribe: () => pubsub.subscribe('tick'),
          resolve: (n: number) => {
            if (n < 0) throw new GraphQLError('a failed read', { extensions: { code: 'UNAVAILABLE' } });
            return n;
          },
        },
      },
    },
  });
}
