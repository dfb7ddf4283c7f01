import { Readable } from 'node:stream';
import type { ExecutionResult, GraphQLError } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { attachDirectSink, sharedJson } from './shared-subscriptions.ts';

/**
 * The longest a stream stays silent: past it, a comment line goes out so proxies and browsers keep it open. As
 * Yoga's own writer, 12 s, and 300 ms under NODE_ENV=test, where in-process clients read through a web stream that
 * can only cancel between two chunks. A stream that carried an event since the last check gets no comment: on
 * a busy stream it would be one more write to the socket, and one more wake-up of the client, for nothing.
 */
const SSE_PING_MS = process.env.NODE_ENV === 'test' ? 300 : 12_000;

/**
 * Subscription streams over SSE (GraphQL over SSE, "distinct connections" mode, as Yoga writes it): each
 * event is one push of `event: next` and its data into a Node stream piped to the socket, where Yoga's own
 * writer encodes each event's text again for every subscriber and passes it through a web stream. A result
 * shared by many subscribers (src/http/shared-subscriptions.ts) is encoded once, and every subscriber's
 * stream writes those same bytes. Single results (a stream refused before it started) stay with Yoga's writer.
 */
export function sseResultsPlugin(): Plugin {
  return {
    onResultProcess({ request, result, setResultProcessor }) {
      if (isAsyncIterable(result) && acceptsEventStream(request.headers.get('accept'))) {
        setResultProcessor(
          (stream, fetchAPI) => sseResponse(stream as AsyncIterable<ExecutionResult>, fetchAPI.Response, request),
          'text/event-stream',
        );
      }
    },
  };
}

/**
 * Whether Yoga would answer this Accept with SSE: for a stream, text/event-stream wins whenever any listed
 * media type (wildcards included, no Accept meaning any) matches it, utf-8 or no charset given.
 */
export function acceptsEventStream(accept: string | null): boolean {
  return (accept || '*/*')
    .replace(/\s/g, '')
    .toLowerCase()
    .split(',')
    .some((entry) => {
      const [mediaType = '', ...params] = entry.split(';');
      const charset = params.find((param) => param.startsWith('charset='));
      if (charset && charset !== 'charset=utf-8') return false;
      const [type, subtype] = mediaType.split('/');
      return (type === '*' || type === 'text') && (subtype === '*' || subtype === 'event-stream');
    });
}

const PING = Buffer.from(':\n\n');
const COMPLETE = Buffer.from('event: complete\ndata:\n\n');
/** The event bytes of each shared result, made by its first subscriber's stream. */
const encoded = new WeakMap<ExecutionResult, Buffer>();

function sseResponse(stream: AsyncIterable<ExecutionResult>, Response: typeof globalThis.Response, request: Request): Response {
  const iterator = stream[Symbol.asyncIterator]();
  let ping: NodeJS.Timeout | undefined;
  // Whether the reader asked for more since the last event (read() below): a shared result then goes
  // straight to the stream (src/http/shared-subscriptions.ts, DirectSink), with no promise per event.
  let wanted = false;
  let direct: { drain(): void } | undefined;
  // A ping pushed while a result is awaited makes the stream ask again; the shared stream's subscriber
  // serves one next() at a time, so a second is not started.
  let pulling = false;
  // Whether bytes went out since the last keep-alive check.
  let sent = false;
  const body = new Readable({
    // No read-ahead: the next result is awaited only when the socket took the last, so a subscriber that
    // stops reading is bounded by its own queue alone (SUBSCRIBER_QUEUE_LIMIT), on every Node line (the
    // default buffer grew from 16 to 64 KiB in Node 22).
    highWaterMark: 0,
    read() {
      wanted = true;
      direct?.drain();
      if (pulling) return;
      pulling = true;
      iterator.next().then(
        (step) => {
          pulling = false;
          if (step.done) {
            this.push(COMPLETE);
            this.push(null);
          } else {
            wanted = false;
            sent = true;
            this.push(eventBytes(step.value));
          }
        },
        (error: unknown) => {
          pulling = false;
          this.destroy(error as Error);
        },
      );
    },
    destroy(error, callback) {
      clearInterval(ping);
      // Not awaited: a stream's return() may wait for the pending next(), which waits for an event.
      Promise.resolve(iterator.return?.()).catch(() => undefined);
      callback(error);
    },
  });
  direct = attachDirectSink(request, {
    ready: () => wanted && !body.destroyed,
    deliver(result) {
      wanted = false;
      sent = true;
      body.push(eventBytes(result));
    },
  });
  // Some browsers show nothing of a stream until its first bytes: a comment goes out at once.
  sent = true;
  body.push(PING);
  // Checked twice per SSE_PING_MS, a comment when nothing went out since the check before: an idle stream gets
  // one every SSE_PING_MS, and no stream is silent for longer.
  ping = setInterval(() => {
    if (sent) sent = false;
    else if (body.readableLength === 0) {
      sent = true;
      body.push(PING);
    }
  }, SSE_PING_MS / 2);
  ping.unref();
  body.once('end', () => clearInterval(ping));
  return new Response(body as unknown as BodyInit, {
    status: 200,
    headers: { 'Content-Type': 'text/event-stream', Connection: 'keep-alive', 'Cache-Control': 'no-cache', 'Content-Encoding': 'none' },
  });
}

function eventBytes(result: ExecutionResult): Buffer {
  const json = sharedJson(result);
  if (json === undefined) return Buffer.from(`event: next\ndata: ${JSON.stringify(withoutInternals(result))}\n\n`);
  let bytes = encoded.get(result);
  if (!bytes) encoded.set(result, (bytes = Buffer.from(`event: next\ndata: ${json}\n\n`)));
  return bytes;
}

/** A result as a client may see it: the `http` and `unexpected` extensions are Yoga's own, never sent. */
function withoutInternals(result: ExecutionResult): ExecutionResult {
  if (!result.errors?.length && !result.extensions?.http) return result;
  const { http: _http, ...extensions } = result.extensions ?? {};
  return {
    ...result,
    errors: result.errors?.map((error) => {
      const json = (error as GraphQLError).toJSON?.() ?? error;
      const { http: _status, unexpected: _unexpected, ...kept } = json.extensions ?? {};
      return { ...json, extensions: Object.keys(kept).length ? kept : undefined } as unknown as GraphQLError;
    }),
    extensions: Object.keys(extensions).length ? extensions : undefined,
  };
}
