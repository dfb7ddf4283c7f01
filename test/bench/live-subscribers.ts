/**
 * One client process of `npm run bench:live` (live.ts forks several, so the clients are not the bottleneck):
 * holds its share of the subscribers, half SSE (a POST with `Accept: text/event-stream`, the way graphql-yoga
 * serves it) and half WebSocket (the graphql-ws protocol), and counts what each receives.
 *
 * An event is an order whose commitment hash carries its sequence number and the time its create was sent
 * (live.ts, eventHash); the receipt time minus that is the delivery latency, kept in a histogram of
 * 0.1 ms buckets; and from the create's answer, whose time live.ts passes on (a receipt that came first waits
 * for it, and counts as 0). The clients stand for users on other machines, yet share the cores with the service:
 * they read raw bytes over node:net, with no HTTP or WebSocket library (the WebSocket frames' few header bytes are
 * read here) and no JSON parser, and find each event's hash in the bytes, so they take as little of the cores as
 * they can.
 */
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';

export interface OpenCommand {
  type: 'open';
  /** One subscriber per entry: the instance's port, the user whose orders it follows, the transport. */
  subscribers: { port: number; userId: string; transport: 'sse' | 'ws' }[];
  /** Connections opening at once, per process. */
  concurrency: number;
  query: string;
}

export const BUCKET_MS = 0.1;
const BUCKETS = 600_000;
const WARM_UP = 0xffffffff;

const histogram = new Uint32Array(BUCKETS);
/** Deliveries per event sequence number, over every subscriber of this process. */
let perSeq = new Uint32Array(1 << 16);
/** The same from the create's answer (live.ts sends each answer's time as it comes): the fan-out alone. */
const fromAnswer = new Uint32Array(BUCKETS);
const answeredAt = new Map<number, number>();
/** Receipts of events whose answer live.ts has not passed on yet: counted when it does. */
const beforeAnswer = new Map<number, number[]>();
let receivedBeforeAnswer = 0;

function countFromAnswer(ms: number) {
  if (ms < 0) receivedBeforeAnswer += 1;
  fromAnswer[Math.min(BUCKETS - 1, Math.max(0, Math.floor(ms / BUCKET_MS)))]! += 1;
}
let warmed = 0;
let errors = 0;
let closed = 0;
let received = 0;
const firstErrors: string[] = [];

function note(error: string) {
  errors += 1;
  if (firstErrors.length < 5) firstErrors.push(error.slice(0, 300));
}

class Subscriber {
  seenWarmUp = false;
  done = false;

  /** An event's hash: its sequence number and its create's send time, in microseconds (live.ts, eventHash). */
  onHash(seq: number, sentMicros: number, at: number) {
    if (seq === WARM_UP) {
      if (!this.seenWarmUp) warmed += 1;
      this.seenWarmUp = true;
      return;
    }
    const bucket = Math.min(BUCKETS - 1, Math.max(0, Math.floor((at * 1000 - sentMicros) / (BUCKET_MS * 1000))));
    histogram[bucket]! += 1;
    received += 1;
    if (seq >= perSeq.length) {
      const grown = new Uint32Array(Math.max(seq + 1, perSeq.length * 2));
      grown.set(perSeq);
      perSeq = grown;
    }
    perSeq[seq]! += 1;
    const answered = answeredAt.get(seq);
    if (answered === undefined) {
      const waiting = beforeAnswer.get(seq);
      if (waiting) waiting.push(at);
      else beforeAnswer.set(seq, [at]);
    } else {
      countFromAnswer(at - answered);
    }
  }

  ended(why: string) {
    if (this.done) return;
    this.done = true;
    closed += 1;
    note(why);
  }
}

const nowMs = () => performance.timeOrigin + performance.now();

const HASH_KEY = Buffer.from('"commitmentHash":"');
/** The hash's sequence number (8 hex) and send time (14 hex). */
const HASH_HEAD = 22;
const ERRORS = Buffer.from('"errors":');
const SSE_COMPLETE = Buffer.from('event: complete');
const HEAD_END = Buffer.from('\r\n\r\n');
const MARKER_MAX = Math.max(HASH_KEY.length, ERRORS.length, SSE_COMPLETE.length);

/**
 * Finds each event's hash in a stream's bytes as they come; a hash or a marker cut by a read is completed by the
 * next. The HTTP chunks' size lines are left in the bytes: the service writes each event in one chunk
 * (test/subscription-fanout.test.ts), so none falls inside a hash. An event with errors has no hash: it is noted (and counted missing).
 */
class HashScanner {
  private tail: Buffer | undefined;
  constructor(private readonly s: Subscriber) {}

  scan(chunk: Buffer, at: number) {
    const data = this.tail ? Buffer.concat([this.tail, chunk]) : chunk;
    this.tail = undefined;
    let from = 0;
    for (;;) {
      const key = data.indexOf(HASH_KEY, from);
      if (key < 0) break;
      const hash = key + HASH_KEY.length;
      if (hash + HASH_HEAD > data.length) {
        this.check(data, from, key);
        this.tail = Buffer.from(data.subarray(key));
        return;
      }
      this.s.onHash(hexAt(data, hash, 8), hexAt(data, hash + 8, HASH_HEAD - 8), at);
      from = hash + HASH_HEAD;
    }
    // The last bytes may hold the start of a key or a marker: they are read again with the next chunk.
    const keep = Math.max(from, data.length - (MARKER_MAX - 1));
    this.check(data, from, keep);
    if (keep < data.length) this.tail = Buffer.from(data.subarray(keep));
  }

  /** Markers that start in data[from, before): an error result (which has no hash), or the stream's end. */
  private check(data: Buffer, from: number, before: number) {
    const errors = data.indexOf(ERRORS, from);
    if (errors >= 0 && errors < before) note(data.toString('utf8', errors, errors + 300));
    const complete = data.indexOf(SSE_COMPLETE, from);
    if (complete >= 0 && complete < before) this.s.ended('SSE complete');
  }
}

/** The number written in hex in data[at, at + digits). */
const hexAt = (data: Buffer, at: number, digits: number) => Number.parseInt(data.toString('latin1', at, at + digits), 16);

/**
 * Connects and sends `request`; hands the bytes after the answer's head to `body` once the head is read, with
 * its status. Raw bytes over node:net, as the whole client: the clients stand for users on other machines, and
 * take as little of the cores the service runs on as they can (no HTTP or WebSocket parser, no JSON). The
 * connection's close or error is `end`, named after `transport`.
 */
function rawConnection(
  port: number,
  request: string,
  transport: 'SSE' | 'WS',
  end: (why: string) => void,
  onHead: (status: string, socket: Socket) => void,
  body: (chunk: Buffer, at: number) => void,
) {
  const socket = connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  socket.on('connect', () => socket.write(request));
  socket.on('close', () => end(`${transport} closed`));
  socket.on('error', (err) => end(`${transport} ${err.message}`));
  let head: Buffer | undefined = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    const at = nowMs();
    if (head) {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf(HEAD_END);
      if (end < 0) return;
      const rest = head.subarray(end + HEAD_END.length);
      onHead(head.toString('latin1', 9, 12), socket);
      head = undefined;
      if (rest.length > 0 && !socket.destroyed) body(rest, at);
      return;
    }
    body(chunk, at);
  });
  return socket;
}

function openSse(port: number, body: string, s: Subscriber): Promise<void> {
  return new Promise((resolve) => {
    const end = (why: string) => {
      s.ended(why);
      resolve();
    };
    const scanner = new HashScanner(s);
    const request = `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    rawConnection(
      port,
      request,
      'SSE',
      end,
      (status, socket) => {
        if (status !== '200') {
          end(`SSE ${status}`);
          socket.destroy();
        }
        resolve();
      },
      (chunk, at) => scanner.scan(chunk, at),
    );
  });
}

/** A client's frame: masked, as the protocol requires of clients; the clients' messages are all under 64 KiB. */
function clientFrame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  const head = length < 126 ? 2 : 4;
  const frame = Buffer.alloc(head + 4 + length);
  frame[0] = 0x80 | opcode;
  if (length < 126) frame[1] = 0x80 | length;
  else {
    frame[1] = 0x80 | 126;
    frame.writeUInt16BE(length, 2);
  }
  const mask = randomBytes(4);
  mask.copy(frame, head);
  for (let i = 0; i < length; i++) frame[head + 4 + i] = payload[i]! ^ mask[i & 3]!;
  return frame;
}

const NEXT = Buffer.from('{"id":"1","type":"next"');

function openWs(port: number, payload: object, s: Subscriber): Promise<void> {
  return new Promise((resolve) => {
    const end = (why: string) => {
      s.ended(why);
      resolve();
    };
    const request = `GET /graphql HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: graphql-transport-ws\r\n\r\n`;
    const sendText = (text: string) => socket.write(clientFrame(0x1, Buffer.from(text)));
    /** Bytes of a frame not complete yet. */
    let pending: Buffer | undefined;
    const onMessage = (message: Buffer, at: number) => {
      if (message.subarray(0, NEXT.length).equals(NEXT)) {
        const key = message.indexOf(HASH_KEY);
        if (key < 0) return note(message.toString('utf8', 0, 300));
        const hash = key + HASH_KEY.length;
        return s.onHash(hexAt(message, hash, 8), hexAt(message, hash + 8, HASH_HEAD - 8), at);
      }
      const text = message.toString('utf8');
      if (text.includes('"type":"connection_ack"')) {
        sendText(JSON.stringify({ id: '1', type: 'subscribe', payload }));
        return resolve();
      }
      if (text.includes('"type":"ping"')) return sendText('{"type":"pong"}');
      s.ended(`WS ${text}`);
    };
    const socket = rawConnection(
      port,
      request,
      'WS',
      end,
      (status, socket) => {
        if (status !== '101') {
          end(`WS ${status}`);
          return socket.destroy();
        }
        sendText('{"type":"connection_init"}');
      },
      (chunk, at) => {
        const data = pending ? Buffer.concat([pending, chunk]) : chunk;
        let at0 = 0;
        for (;;) {
          if (data.length - at0 < 2) break;
          let length = data[at0 + 1]! & 0x7f;
          let head = 2;
          if (length === 126) {
            if (data.length - at0 < 4) break;
            length = data.readUInt16BE(at0 + 2);
            head = 4;
          } else if (length === 127) {
            if (data.length - at0 < 10) break;
            length = Number(data.readBigUInt64BE(at0 + 2));
            head = 10;
          }
          if (data.length - at0 < head + length) break;
          const opcode = data[at0]! & 0x0f;
          // The service sends each message in one frame; a fragment would hide its event's hash, so it is noted.
          if (opcode === 0x0 || (opcode === 0x1 && !(data[at0]! & 0x80))) note('WS fragmented message');
          const message = data.subarray(at0 + head, at0 + head + length);
          at0 += head + length;
          // The server's keep-alive ping is answered with its payload; a close ends the subscriber.
          if (opcode === 0x9) socket.write(clientFrame(0xa, message));
          else if (opcode === 0x8) {
            s.ended(`WS closed ${message.length >= 2 ? message.readUInt16BE(0) : ''} ${message.toString('utf8', 2)}`);
            socket.end();
          } else if (opcode === 0x1) onMessage(message, at);
        }
        pending = at0 < data.length ? Buffer.from(data.subarray(at0)) : undefined;
      },
    );
  });
}

async function open(command: OpenCommand) {
  const pending = [...command.subscribers];
  const lanes = Array.from({ length: command.concurrency }, async () => {
    for (let next = pending.shift(); next; next = pending.shift()) {
      const s = new Subscriber();
      const variables = { userId: next.userId };
      if (next.transport === 'sse') await openSse(next.port, JSON.stringify({ query: command.query, variables }), s);
      else await openWs(next.port, { query: command.query, variables }, s);
    }
  });
  await Promise.all(lanes);
}

/** Creates answered since the last such message: each one's sequence number and when its answer came. */
export interface AnsweredCommand {
  type: 'answered';
  answers: [seq: number, at: number][];
}

process.on('message', (message: OpenCommand | AnsweredCommand | { type: 'status' | 'report' }) => {
  if (message.type === 'answered') {
    for (const [seq, answered] of message.answers) {
      answeredAt.set(seq, answered);
      for (const at of beforeAnswer.get(seq) ?? []) countFromAnswer(at - answered);
      beforeAnswer.delete(seq);
    }
  } else if (message.type === 'open') {
    void open(message).then(() => process.send!({ type: 'opened' }));
  } else if (message.type === 'status') {
    process.send!({ type: 'status', warmed, closed, errors, received, firstErrors });
  } else {
    const sparse = (counts: Uint32Array) => {
      const buckets: [number, number][] = [];
      counts.forEach((count, i) => count && buckets.push([i, count]));
      return buckets;
    };
    process.send!({
      type: 'report',
      buckets: sparse(histogram),
      fromAnswer: sparse(fromAnswer),
      beforeAnswer: receivedBeforeAnswer,
      perSeq: Array.from(perSeq),
      closed,
      errors,
      received,
      firstErrors,
    });
  }
});
