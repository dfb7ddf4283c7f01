import { GraphQLError, type DocumentNode, type ExecutionResult } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { ErrorCode } from '../domain/errors.ts';

/**
 * Events a subscriber may fall behind by before it is dropped: past this, its stream ends with one
 * SLOW_CONSUMER error rather than holding every later event in memory.
 */
export const SUBSCRIBER_QUEUE_LIMIT = 256;

/**
 * A transport's direct way to a subscriber's socket, for results that need no per-subscriber work: the
 * shared results without errors. Such a result is handed to `deliver` as the shared stream produces it, with
 * no promise per subscriber per event, past the per-subscriber async iterators that envelop's plugins wrap
 * around a stream: their per-result hooks (error masking, the error counts of src/http/metrics.ts) act only
 * on results with errors, which still go through them, as do the stream's end and a SLOW_CONSUMER drop. A plugin
 * added to src/app.ts whose hooks act on every result would have to be taken into `shareable` below.
 */
export interface DirectSink {
  /** Whether the socket takes a result now; when it does not, results wait in the subscriber's queue. */
  ready(): boolean;
  deliver(result: ExecutionResult): void;
}

/** The subscriber behind each request's shared stream, for its transport to attach a DirectSink to. */
const subscribersByRequest = new WeakMap<object, Subscriber>();

/**
 * Lets the transport of `request` take its shared results directly (DirectSink). Undefined when the request has
 * no shared stream, or its stream already ended or holds results: it then keeps reading through the iterator.
 * While attached, the transport calls `drain` whenever its socket is ready again.
 */
export function attachDirectSink(request: object | undefined, sink: DirectSink): { drain(): void } | undefined {
  const subscriber = request ? subscribersByRequest.get(request) : undefined;
  return subscriber?.attach(sink) ? subscriber : undefined;
}

/**
 * One execution per event for every subscriber of the same operation with the same variables: the
 * first subscriber's stream is executed (one read of the order, one result object), and each later
 * subscriber joins it and gets the same result, through a queue of its own bounded by `queueLimit`.
 * Sound because no field a subscription selects depends on the caller (Order and Intent are public;
 * their resolvers read the context's stores and clock only). Sits inside the subscription caps
 * (src/http/subscription-limits.ts), which still count each subscriber.
 */
export function sharedSubscriptionsPlugin(options: { queueLimit?: number; onDropped?: () => void } = {}): Plugin & { active(): number } {
  const queueLimit = options.queueLimit ?? SUBSCRIBER_QUEUE_LIMIT;
  const streams = new Map<string, Promise<Fanout | ExecutionResult>>();
  // Documents by identity: Yoga's parse cache gives one document per query text, SSE and WebSocket alike.
  const documents = new WeakMap<DocumentNode, number>();
  let nextDocument = 0;
  return {
    active: () => streams.size,
    onSubscribe({ subscribeFn, setSubscribeFn }) {
      setSubscribeFn(async (args) => {
        let id = documents.get(args.document);
        if (id === undefined) {
          id = nextDocument++;
          documents.set(args.document, id);
        }
        const key = `${id}\0${args.operationName ?? ''}\0${JSON.stringify(args.variableValues ?? {})}`;
        for (;;) {
          let entry = streams.get(key);
          if (!entry) {
            const started = Promise.resolve(subscribeFn(args)).then((result) => {
              if (!isAsyncIterable(result)) {
                streams.delete(key);
                return result as ExecutionResult;
              }
              return new Fanout(result as AsyncIterable<ExecutionResult>, queueLimit, options.onDropped, () => {
                if (streams.get(key) === started) streams.delete(key);
              });
            });
            started.catch(() => streams.get(key) === started && streams.delete(key));
            streams.set(key, started);
            entry = started;
          }
          const shared = await entry;
          if (!(shared instanceof Fanout)) return shared;
          const joined = shared.join();
          // The stream ended between its start and this join (its last subscriber left): start another.
          if (joined) {
            const request = (args.contextValue as { request?: object } | undefined)?.request;
            if (request) subscribersByRequest.set(request, joined);
            return joined;
          }
        }
      });
    },
  };
}

/**
 * A result serialised once for all its subscribers: Yoga's SSE writer uses a result's own `stringify`
 * when it has one, and the WebSocket transport asks `sharedJson` (src/websocket.ts). A function is
 * no JSON, so the result's own text is unchanged.
 */
function withSharedJson(result: ExecutionResult): ExecutionResult {
  // Errors and extensions are left to each transport, which trims internals from them its own way.
  if (result.errors?.length || result.extensions) return result;
  let json: string | undefined;
  return Object.assign(result, { stringify: (value: unknown) => (json ??= JSON.stringify(value)) });
}

/**
 * Whether a result may go to a DirectSink: shared and without errors. A result whose text cannot be made goes
 * through the iterator, where that failure is its own subscriber's, not the whole fan-out's.
 */
function shareable(result: ExecutionResult): boolean {
  try {
    return sharedJson(result) !== undefined;
  } catch {
    return false;
  }
}

/** The shared JSON text of a result that came through a shared stream; undefined for any other. */
export function sharedJson(result: ExecutionResult): string | undefined {
  const stringify = (result as { stringify?: unknown }).stringify;
  return typeof stringify === 'function' ? (stringify as (value: unknown) => string)(result) : undefined;
}

/** One source stream, read once, each result handed to every subscriber's queue. */
class Fanout {
  private readonly subscribers = new Set<Subscriber>();
  private ended = false;
  private readonly iterator: AsyncIterator<ExecutionResult>;

  constructor(
    source: AsyncIterable<ExecutionResult>,
    private readonly queueLimit: number,
    private readonly onDropped: (() => void) | undefined,
    private readonly onEnd: () => void,
  ) {
    this.iterator = source[Symbol.asyncIterator]();
    void this.pump();
  }

  join(): Subscriber | undefined {
    if (this.ended) return undefined;
    const subscriber = new Subscriber(this.queueLimit, (s, dropped) => {
      this.subscribers.delete(s);
      if (dropped) this.onDropped?.();
      if (this.subscribers.size === 0) this.end();
    });
    this.subscribers.add(subscriber);
    return subscriber;
  }

  private async pump() {
    try {
      for (;;) {
        const step = await this.iterator.next();
        if (step.done) break;
        const result = withSharedJson(step.value);
        for (const s of this.subscribers) s.push(result);
      }
      for (const s of this.subscribers) s.finish();
    } catch (error) {
      for (const s of this.subscribers) s.fail(error);
    } finally {
      this.end();
    }
  }

  private end() {
    if (this.ended) return;
    this.ended = true;
    this.onEnd();
    void this.iterator.return?.();
  }
}

/**
 * A subscriber's own queue of the shared results; dropped, with one error, when it falls too far behind.
 * Read as an async iterator, or, once its transport attached a DirectSink, its error-free results go to the
 * sink and the iterator carries only the rest (a result with errors, the drop, the end), in order.
 */
class Subscriber implements AsyncIterableIterator<ExecutionResult> {
  private readonly queue: ExecutionResult[] = [];
  private sink: DirectSink | undefined;
  /** The sink while a result it does not take, and those before it, go through the iterator. */
  private paused: DirectSink | undefined;
  private waiting: ((step: IteratorResult<ExecutionResult>) => void) | undefined;
  private failWaiting: ((error: unknown) => void) | undefined;
  private done = false;
  private failure: { error: unknown } | undefined;

  constructor(
    private readonly limit: number,
    private readonly left: (s: Subscriber, dropped: boolean) => void,
  ) {}

  [Symbol.asyncIterator]() {
    return this;
  }

  push(result: ExecutionResult) {
    if (this.done) return;
    if (this.queue.length >= this.limit) return this.drop();
    if (this.sink && shareable(result)) {
      this.queue.push(result);
      this.drain();
      return;
    }
    // A result with errors goes through the per-subscriber hooks, and what waits goes before it: direct delivery
    // pauses until the iterator has handed all of it on (next() below).
    if (this.sink) this.paused = this.sink;
    this.sink = undefined;
    if (this.waiting && this.queue.length === 0) return this.resolve({ done: false, value: result });
    this.queue.push(result);
    this.wake();
  }

  /** Direct delivery (DirectSink) from now on; only while nothing is queued, so no result overtakes another. */
  attach(sink: DirectSink): boolean {
    if (this.done || this.queue.length > 0) return false;
    this.sink = sink;
    return true;
  }

  /** Hands the queued results to the sink while its socket takes them. */
  drain() {
    const sink = this.sink;
    while (sink && this.sink === sink && this.queue.length > 0 && sink.ready()) {
      const result = this.queue.shift()!;
      try {
        sink.deliver(result);
      } catch (error) {
        // A socket that fails a write ends this subscriber's stream alone, not the fan-out to the others.
        this.fail(error);
      }
    }
  }

  finish() {
    this.close(false);
    this.wake();
  }

  fail(error: unknown) {
    if (this.done) return;
    this.failure = { error };
    this.close(false);
    this.wake();
  }

  next(): Promise<IteratorResult<ExecutionResult>> {
    // A transport asks again once it wrote what the iterator gave it: with nothing left to hand on, direct
    // delivery resumes, and no later result can overtake an earlier one.
    if (this.paused && this.queue.length === 0 && !this.done) {
      this.sink = this.paused;
      this.paused = undefined;
    }
    // While a sink takes the results, the iterator waits for what the sink does not take.
    const value = this.sink ? undefined : this.queue.shift();
    if (value) return Promise.resolve({ done: false, value });
    if (this.failure) return Promise.reject(this.failure.error);
    if (this.done) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      this.failWaiting = reject;
    });
  }

  return(): Promise<IteratorResult<ExecutionResult>> {
    this.queue.length = 0;
    this.close(false);
    this.wake();
    return Promise.resolve({ done: true, value: undefined });
  }

  /** Too far behind: what is queued is let go, and the client is told why its stream ends. */
  private drop() {
    this.queue.length = 0;
    const code: ErrorCode = 'SLOW_CONSUMER';
    const message = `this subscriber fell more than ${this.limit} events behind and was dropped; subscribe again and read the current state`;
    this.queue.push({ errors: [new GraphQLError(message, { extensions: { code } })] });
    this.close(true);
    this.wake();
  }

  /** A waiting next() gets what next() would give now, if that is anything but another wait. */
  private wake() {
    if (!this.waiting || this.sink) return;
    if (this.queue.length > 0) return this.resolve({ done: false, value: this.queue.shift()! });
    if (this.failure) {
      const reject = this.failWaiting!;
      this.waiting = this.failWaiting = undefined;
      return reject(this.failure.error);
    }
    if (this.done) this.resolve({ done: true, value: undefined });
  }

  private resolve(step: IteratorResult<ExecutionResult>) {
    const resolve = this.waiting!;
    this.waiting = this.failWaiting = undefined;
    resolve(step);
  }

  private close(dropped: boolean) {
    if (this.done) return;
    this.done = true;
    this.sink = this.paused = undefined;
    this.left(this, dropped);
  }
}
