/**
 * One client process of `npm run bench:live` (live.ts forks several, so the clients are not the bottleneck):
 * holds its share of the subscribers, half SSE (a minimal reader over node:http, the way graphql-yoga serves
 * it) and half WebSocket (the graphql-ws protocol over `ws`), and counts what each receives.
 *
 * An event is an order whose commitment hash carries its sequence number and the time its create was sent
 * (live.ts, eventHash); the receipt time minus that is the delivery latency, kept in a histogram of
 * 0.1 ms buckets; and from the create's answer, whose time live.ts sends as it comes (a receipt that came
 * first waits for it, and counts as 0). Nothing is parsed as JSON: the hash is found in the text, which keeps the clients cheap.
 */
import { request } from 'node:http';
import WebSocket from 'ws';

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
const HASH = /"commitmentHash":"([0-9a-f]{8})([0-9a-f]{14})[0-9a-f]{42}"/;

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

  onText(text: string, at: number) {
    const match = HASH.exec(text);
    if (!match) {
      note(text);
      return;
    }
    const seq = Number.parseInt(match[1]!, 16);
    if (seq === WARM_UP) {
      if (!this.seenWarmUp) warmed += 1;
      this.seenWarmUp = true;
      return;
    }
    const sentMicros = Number.parseInt(match[2]!, 16);
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

function openSse(port: number, body: string, s: Subscriber): Promise<void> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/graphql',
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        if (res.statusCode !== 200) {
          s.ended(`SSE ${res.statusCode}`);
          res.resume();
          return resolve();
        }
        res.setEncoding('utf8');
        let buffered = '';
        res.on('data', (chunk: string) => {
          const at = nowMs();
          buffered += chunk;
          let end = buffered.indexOf('\n\n');
          while (end >= 0) {
            const block = buffered.slice(0, end);
            buffered = buffered.slice(end + 2);
            if (block.startsWith('event: next')) s.onText(block, at);
            else if (block.startsWith('event: complete')) s.ended('SSE complete');
            end = buffered.indexOf('\n\n');
          }
        });
        res.on('close', () => s.ended('SSE closed'));
        resolve();
      },
    );
    req.on('error', (err) => {
      s.ended(`SSE ${err.message}`);
      resolve();
    });
    req.end(body);
  });
}

function openWs(port: number, payload: object, s: Subscriber): Promise<void> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/graphql`, 'graphql-transport-ws', { perMessageDeflate: false });
    socket.on('open', () => socket.send('{"type":"connection_init"}'));
    socket.on('message', (data) => {
      const at = nowMs();
      const text = String(data);
      if (text.startsWith('{"id":"1","type":"next"')) return s.onText(text, at);
      if (text.includes('"type":"connection_ack"')) {
        socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload }));
        return resolve();
      }
      if (text.includes('"type":"ping"')) return socket.send('{"type":"pong"}');
      s.ended(`WS ${text}`);
    });
    socket.on('close', (code, reason) => {
      s.ended(`WS closed ${code} ${String(reason)}`);
      resolve();
    });
    socket.on('error', (err) => {
      s.ended(`WS ${err.message}`);
      resolve();
    });
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
