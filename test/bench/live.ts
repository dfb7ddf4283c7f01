/**
 * Live updates at scale (test/bench/README.md, "Live updates"): BENCH_LIVE_SUBSCRIBERS subscribers, half SSE
 * and half WebSocket, on `npm start` with production settings over PostgreSQL, while an order is created
 * through the API every BENCH_LIVE_INTERVAL_MS for BENCH_LIVE_SECONDS, after BENCH_LIVE_WARM_SECONDS of the same
 * schedule unmeasured. Prints delivery latency from the
 * create's send to each subscriber's receipt (p50/p99/max) and from the create's answer (the fan-out alone),
 * the deliveries missing, the server's memory per subscriber and its CPU per delivery; first on one instance,
 * then on three sharing Redis (subscribers spread over the three, orders created through the first).
 *
 *   npm run bench:live
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { availableParallelism } from 'node:os';
import WebSocket from 'ws';
import { freePort } from '../support/server-process.ts';
import { type AnsweredCommand, BUCKET_MS, type OpenCommand } from './live-subscribers.ts';
import { procCpuMs } from './creates.ts';
import { NODE_FLAGS, SERVICE_ENV } from './node-flags.ts';
import { recreateDatabase } from './processes.ts';
import { ROOT } from './settings.ts';

const env = process.env;
const SUBSCRIBERS = Number(env.BENCH_LIVE_SUBSCRIBERS ?? 10_000);
const SECONDS = Number(env.BENCH_LIVE_SECONDS ?? 60);
const INTERVAL_MS = Number(env.BENCH_LIVE_INTERVAL_MS ?? 10);
/** Users the subscribers are spread over: 1, every subscriber follows one user and gets every event. */
const TOPICS = Number(env.BENCH_LIVE_TOPICS ?? 1);
const PROCESSES = Number(env.BENCH_LIVE_PROCESSES ?? 4);
/** Creates sent and not yet answered, at most. */
const IN_FLIGHT = Number(env.BENCH_LIVE_IN_FLIGHT ?? 16);
const INSTANCES = (env.BENCH_LIVE_INSTANCES ?? '1,3').split(',').map(Number);
const ADMIN_URL = env.BENCH_LIVE_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const DATABASE = env.BENCH_LIVE_DATABASE ?? 'bench_live';
const REDIS_URL = env.BENCH_LIVE_REDIS_URL ?? 'redis://127.0.0.1:6379';
const DATABASE_URL = ADMIN_URL.replace(/\/[^/]*$/, `/${DATABASE}`);
const EVENTS = Math.floor((SECONDS * 1000) / INTERVAL_MS);
/** Seconds of the schedule run before the measured window, not counted. */
const WARM_SECONDS = Number(env.BENCH_LIVE_WARM_SECONDS ?? 5);
const WARM_EVENTS = Math.floor((WARM_SECONDS * 1000) / INTERVAL_MS);

/** A dashboard's row: the order, its status, both sides. */
const QUERY = `subscription Live($userId: String!) {
  userOrdersUpdated(userId: $userId) {
    orderId userId status updatedAt
    sourceIntent { swapId chain asset amount commitmentHash createTxHash }
    destinationIntent { swapId chain asset amount createTxHash claimTxHash }
  }
}`;
const WARM_UP = 0xffffffff;
const USER_BTC = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';
const USER_EVM = '0x5a5A5a5a5A5a5a5a5a5A5a5A5A5a5a5A5A5A5A5A';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const nowMs = () => performance.timeOrigin + performance.now();
/** Sequence number (8 hex), send time in microseconds (14 hex), then random: what live-subscribers.ts reads back. */
const eventHash = (seq: number) =>
  seq.toString(16).padStart(8, '0') +
  Math.round(nowMs() * 1000)
    .toString(16)
    .padStart(14, '0') +
  randomBytes(21).toString('hex');

const progress = (line: string) => process.stderr.write(`${line}\n`);
const children: ChildProcess[] = [];
process.on('exit', () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});
process.on('SIGINT', () => process.exit(130));

/** `npm start`'s command line (dist/server.js with its flags), production settings, caps raised for the run. */
async function startInstance(extra: Record<string, string>) {
  const port = await freePort();
  // BENCH_LIVE_CPU_PROF=<dir>: each instance writes a .cpuprofile there when it stops.
  const profile = env.BENCH_LIVE_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${env.BENCH_LIVE_CPU_PROF}`] : [];
  const child = spawn(process.execPath, [...NODE_FLAGS, ...profile, 'dist/server.js'], {
    cwd: ROOT,
    env: {
      ...env,
      ...SERVICE_ENV,
      DATABASE_URL,
      PORT: String(port),
      HOST: '127.0.0.1',
      WS_MAX_CONNECTIONS_PER_IP: String(SUBSCRIBERS),
      SUBSCRIPTIONS_PER_INSTANCE: String(SUBSCRIBERS),
      QUOTE_TTL_SECONDS: '3600',
      // Read for the heap figures, on the API's port.
      METRICS: 'on',
      METRICS_PORT: '',
      ...extra,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  for (const started = Date.now(); ; await sleep(200)) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode})`);
    if (
      await fetch(`http://127.0.0.1:${port}/ready`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (Date.now() - started > 60_000) throw new Error('the server did not start within 60 s');
  }
  return { port, child };
}

/** Resident memory and CPU time (user + system) of a process, from /proc. */
function usage(pid: number) {
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return { rssBytes: rssKb * 1024, cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / 100 };
}

/** CPU time (ms) of every process whose command is one of `names` (PostgreSQL's backends, Redis), from /proc. */
function commandCpuMs(names: string[]): number {
  let total = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let command: string;
    try {
      command = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      continue; // the process exited between the listing and the read
    }
    if (names.some((name) => command.startsWith(name))) total += procCpuMs(Number(pid)) ?? 0;
  }
  return total;
}

/** Busy and total CPU time of the whole machine so far, over every core, from /proc/stat (in ticks). */
function machineTicks() {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  // idle and iowait are the machine's spare time; everything else is some process's work.
  return { busy: total - fields[3]! - (fields[4] ?? 0), total };
}

/** The instance's V8 heap in use and its memory outside the heap (socket buffers among it), from /metrics. */
async function heapMib(port: number) {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  if (!res.ok) throw new Error(`/metrics answered ${res.status}`);
  const text = await res.text();
  const gauge = (name: string) => Math.round(Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1]) / 2 ** 20);
  return { heap_used: gauge('nodejs_heap_size_used_bytes'), external: gauge('nodejs_external_memory_bytes') };
}

/** The clients' latency histograms (0.1 ms buckets) as one; a quantile is its bucket's upper edge. */
function merged(parts: [number, number][][]) {
  const counts = new Map<number, number>();
  for (const part of parts) for (const [b, n] of part) counts.set(b, (counts.get(b) ?? 0) + n);
  const sorted = [...counts].sort((x, y) => x[0] - y[0]);
  const total = sorted.reduce((a, [, n]) => a + n, 0);
  const quantile = (q: number) => {
    let seen = 0;
    for (const [b, n] of sorted) if ((seen += n) >= q * total) return Math.round((b + 1) * BUCKET_MS * 10) / 10;
    return Number.NaN;
  };
  return { total, quantile };
}

/**
 * A full garbage collection in a running instance, through the inspector SIGUSR1 opens (on 127.0.0.1:9229, as
 * any Node process does): the service needs no flag or endpoint for it.
 */
async function collectGarbage(pid: number) {
  process.kill(pid, 'SIGUSR1');
  let target: string | undefined;
  for (let tries = 0; !target && tries < 50; tries++) {
    await sleep(100);
    target = await fetch('http://127.0.0.1:9229/json/list').then(
      async (r) => ((await r.json()) as { webSocketDebuggerUrl: string }[])[0]?.webSocketDebuggerUrl,
      () => undefined,
    );
  }
  if (!target) throw new Error('the instance opened no inspector on 127.0.0.1:9229');
  const socket = new WebSocket(target);
  await new Promise((resolve, reject) => {
    socket.once('open', () => socket.send(JSON.stringify({ id: 1, method: 'HeapProfiler.collectGarbage' })));
    socket.once('message', resolve);
    socket.once('error', reject);
  });
  socket.close();
}

/** The machine's busy cores over the run, split by who used them. */
function coresBusy(t: {
  machine: number;
  machineTotal: number;
  instancesMs: number;
  clientsMs: number;
  benchMs: number;
  postgresMs: number;
  redisMs: number;
  runMs: number;
}) {
  const cores = (ms: number) => Math.round((ms / t.runMs) * 100) / 100;
  const cpus = availableParallelism();
  const machine = (t.machine / t.machineTotal) * cpus;
  const machineMs = machine * t.runMs;
  return {
    of: cpus,
    all: Math.round(machine * 100) / 100,
    instances: cores(t.instancesMs),
    clients: cores(t.clientsMs),
    creates_sender: cores(t.benchMs),
    postgres: cores(t.postgresMs),
    redis: cores(t.redisMs),
    rest: cores(Math.max(0, machineMs - t.instancesMs - t.clientsMs - t.benchMs - t.postgresMs - t.redisMs)),
  };
}

function percentiles(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN);
  return { p50: at(0.5), p99: at(0.99), max: at(1) };
}

/**
 * The creates' connections, kept open. node:http rather than fetch: this process shares the cores with the
 * service, and fetch costs it several times the CPU per request.
 */
const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });

function postJson(port: number, path: string, body: unknown): Promise<{ status: number; body: { result: Record<string, never> } }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
          } catch (error) {
            reject(error);
          }
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

interface Quote {
  quote_id: string;
  source: { asset: string; amount: string };
  destination: { asset: string; amount: string };
}

async function quotes(port: number, count: number): Promise<Quote[]> {
  const out: Quote[] = [];
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (out.length < count) {
        const q = await postJson(port, '/quotes', {
          source: { asset: 'bitcoin:btc', amount: '10000000' },
          destination: { asset: 'ethereum:wbtc' },
        });
        if (q.status !== 201) throw new Error(`quote: ${q.status} ${JSON.stringify(q.body)}`);
        out.push(q.body.result as unknown as Quote);
      }
    }),
  );
  return out;
}

function createOrder(port: number, quote: Quote, userId: string, seq: number) {
  return postJson(port, '/orders', {
    user_id: userId,
    quote_id: quote.quote_id,
    source: { asset: quote.source.asset, recipient: USER_BTC, amount: quote.source.amount },
    destination: { asset: quote.destination.asset, recipient: USER_EVM, amount: quote.destination.amount },
    commitment_hash: eventHash(seq),
  }).then(
    (r) => r.status === 201,
    () => false,
  );
}

type Status = { warmed: number; closed: number; errors: number; received: number; firstErrors: string[] };
type Report = Status & { buckets: [number, number][]; fromAnswer: [number, number][]; beforeAnswer: number; perSeq: number[] };

function ask<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: { type: string }) => {
      if (m.type !== type) return;
      child.off('message', on);
      resolve(m as T);
    };
    child.on('message', on);
    child.send({ type });
  });
}

/**
 * Calls `send` for 0 to `events` - 1, one every INTERVAL_MS, with at most IN_FLIGHT unanswered: past that the
 * schedule slips rather than queueing requests in the client, whose wait would count as delivery. Sends nothing
 * after `windowMs`, then waits for the answers of what it sent.
 */
async function onSchedule(events: number, windowMs: number, send: (n: number) => Promise<unknown>) {
  const inFlight = new Set<Promise<unknown>>();
  let worstLagMs = 0;
  const start = performance.now();
  for (let n = 0; n < events && performance.now() - start < windowMs; n++) {
    const due = start + n * INTERVAL_MS;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    while (inFlight.size >= IN_FLIGHT) await Promise.race(inFlight);
    worstLagMs = Math.max(worstLagMs, performance.now() - due);
    const sent = send(n).finally(() => inFlight.delete(sent));
    inFlight.add(sent);
  }
  const sendingSeconds = (performance.now() - start) / 1000;
  await Promise.all(inFlight);
  return { start, worstLagMs, sendingSeconds };
}

async function scenario(instances: number) {
  const run = randomUUID().slice(0, 8);
  const users = Array.from({ length: TOPICS }, (_, i) => `live-${run}-${i}`);
  const servers = [];
  for (let i = 0; i < instances; i++)
    servers.push(await startInstance(instances > 1 ? { REDIS_URL, REDIS_KEY_PREFIX: `bench-live-${run}:` } : {}));
  const ingest = servers[0]!.port;
  const warmUps = 5 * TOPICS + 50 + WARM_EVENTS;
  const pool = await quotes(ingest, EVENTS + warmUps);
  const before = servers.map((s) => usage(s.child.pid!));

  const clients = Array.from({ length: PROCESSES }, () => {
    const c = fork(new URL('./live-subscribers.ts', import.meta.url).pathname, { execArgv: ['--import', 'tsx'], cwd: ROOT });
    children.push(c);
    return c;
  });
  const shares: OpenCommand['subscribers'][] = clients.map(() => []);
  const perUser = new Map<string, number>();
  for (let i = 0; i < SUBSCRIBERS; i++) {
    const userId = users[i % TOPICS]!;
    perUser.set(userId, (perUser.get(userId) ?? 0) + 1);
    shares[i % PROCESSES]!.push({ port: servers[i % instances]!.port, userId, transport: i % 2 ? 'ws' : 'sse' });
  }
  const opening = Date.now();
  await Promise.all(
    clients.map(
      (c, i) =>
        new Promise<void>((resolve) => {
          c.once('message', () => resolve());
          c.send({ type: 'open', subscribers: shares[i]!, concurrency: 32, query: QUERY } satisfies OpenCommand);
        }),
    ),
  );
  const openSeconds = (Date.now() - opening) / 1000;
  progress(`${instances} instance(s): ${SUBSCRIBERS} subscribers opened in ${openSeconds} s`);

  // An order per user until every subscriber has received one: their subscriptions are live.
  const status = async () => {
    const all = await Promise.all(clients.map((c) => ask<Status>(c, 'status')));
    return { warmed: all.reduce((a, s) => a + s.warmed, 0), closed: all.reduce((a, s) => a + s.closed, 0) };
  };
  let warm = await status();
  for (let i = 0, end = Date.now() + 60_000; warm.warmed < SUBSCRIBERS - warm.closed && Date.now() < end; i++) {
    await createOrder(ingest, pool.pop()!, users[i % TOPICS]!, WARM_UP);
    await sleep(250 / TOPICS);
    warm = await status();
  }
  progress(`${warm.warmed} subscribers live, ${warm.closed} closed; ${WARM_SECONDS} s of warm-up and ${EVENTS} events follow`);
  await sleep(2000);
  // Memory with the subscribers connected, before any load.
  const connected = servers.map((s) => usage(s.child.pid!));
  // The schedule itself for WARM_SECONDS, not measured, and the measured run right after it: every path of the
  // bench is warmed up before it is measured. At this rate the pools open their connections to PostgreSQL, each
  // plans its statements, and V8 compiles the hot paths; those first seconds held most of a run's tail
  // (test/bench/README.md, Live updates).
  await onSchedule(WARM_EVENTS, WARM_SECONDS * 1000, (n) => createOrder(ingest, pool.pop()!, users[n % TOPICS]!, WARM_UP));
  const cpuConnected = servers.map((s) => usage(s.child.pid!).cpuMs);
  const clientsConnected = clients.map((c) => usage(c.pid!).cpuMs);
  const benchConnected = process.cpuUsage();
  const machineConnected = machineTicks();
  const postgresConnected = commandCpuMs(['postgres']);
  const redisConnected = commandCpuMs(['redis-server']);

  // The measured run (onSchedule); how far the schedule slipped is printed as the achieved rate.
  const acked: boolean[] = [];
  // Answers go to the clients every few ms, together: a message per create would wake each client process once more
  // per event. Each answer carries its own time, so when a client learns of it does not change a latency.
  let answers: AnsweredCommand['answers'] = [];
  const passAnswers = () => {
    if (answers.length === 0) return;
    const message = { type: 'answered', answers } satisfies AnsweredCommand;
    for (const c of clients) c.send(message);
    answers = [];
  };
  const answersTimer = setInterval(passAnswers, 20);
  /** Each create's own time, send to answer: the part of the latency that is not the fan-out. */
  const createMs: number[] = [];
  // What the window did not send, however far the schedule slipped, is `not_sent`.
  const { start, worstLagMs, sendingSeconds } = await onSchedule(EVENTS, SECONDS * 1000, (seq) => {
    const sentAt = performance.now();
    return createOrder(ingest, pool.pop()!, users[seq % TOPICS]!, seq).then((ok) => {
      acked[seq] = ok;
      // The event is in the book (ingested) by its answer at the latest: the clients measure from it too.
      if (ok) answers.push([seq, nowMs()]);
      createMs.push(performance.now() - sentAt);
    });
  });
  clearInterval(answersTimer);
  passAnswers();
  const expected = acked.reduce((sum, ok, seq) => sum + (ok ? perUser.get(users[seq % TOPICS]!)! : 0), 0);
  for (let end = Date.now() + 20_000; Date.now() < end; await sleep(500)) {
    const received = (await Promise.all(clients.map((c) => ask<Status>(c, 'status')))).reduce((a, s) => a + s.received, 0);
    if (received >= expected) break;
  }
  const after = servers.map((s) => usage(s.child.pid!));
  const clientsAfter = clients.map((c) => usage(c.pid!).cpuMs);
  const benchCpu = process.cpuUsage(benchConnected);
  const machineAfter = machineTicks();
  const postgresMs = commandCpuMs(['postgres']) - postgresConnected;
  const redisMs = commandCpuMs(['redis-server']) - redisConnected;
  const runMs = performance.now() - start;
  // Memory right after the run and once it is quiet (the subscribers still connected): what the run left
  // behind, against what the collector had not taken back yet.
  const heapAfter = await Promise.all(servers.map((s) => heapMib(s.port)));
  const reports = await Promise.all(clients.map((c) => ask<Report>(c, 'report')));
  await sleep(15_000);
  const quiet = servers.map((s) => usage(s.child.pid!));
  const heapQuiet = await Promise.all(servers.map((s) => heapMib(s.port)));
  // Then a full collection in the first instance: what stays is what the run kept.
  await collectGarbage(servers[0]!.child.pid!);
  const collected = { rss: Math.round(usage(servers[0]!.child.pid!).rssBytes / 2 ** 20), ...(await heapMib(servers[0]!.port)) };

  const perSeq = new Array<number>(EVENTS).fill(0);
  for (const r of reports) r.perSeq.forEach((n, seq) => seq < EVENTS && (perSeq[seq]! += n));
  const fromSend = merged(reports.map((r) => r.buckets));
  // From the create's answer: the fan-out alone. A subscriber may hear of an order before its creator has the
  // answer (the event goes out at the commit); that counts as 0.
  const fromAnswer = merged(reports.map((r) => r.fromAnswer));
  const delivered = fromSend.total;
  const missing = acked.reduce((sum, ok, seq) => sum + (ok ? Math.max(0, perUser.get(users[seq % TOPICS]!)! - perSeq[seq]!) : 0), 0);
  const rssDelta = connected.reduce((a, u, i) => a + u.rssBytes - before[i]!.rssBytes, 0);
  const cpuMs = after.reduce((a, u, i) => a + u.cpuMs - cpuConnected[i]!, 0);
  const result = {
    instances,
    subscribers: SUBSCRIBERS,
    topics: TOPICS,
    events: {
      scheduled: EVENTS,
      acknowledged: acked.filter(Boolean).length,
      not_sent: EVENTS - acked.length,
      interval_ms: INTERVAL_MS,
      worst_send_lag_ms: Math.round(worstLagMs),
      achieved_per_second: Math.round(acked.filter(Boolean).length / sendingSeconds),
    },
    create_ms: percentiles(createMs),
    deliveries: { expected, delivered, missing },
    latency_ms: { p50: fromSend.quantile(0.5), p99: fromSend.quantile(0.99), max: fromSend.quantile(1) },
    latency_from_answer_ms: {
      p50: fromAnswer.quantile(0.5),
      p99: fromAnswer.quantile(0.99),
      max: fromAnswer.quantile(1),
      received_before_answer: reports.reduce((a, r) => a + r.beforeAnswer, 0),
    },
    subscribers_live_before_run: warm.warmed,
    subscribers_closed: reports.reduce((a, r) => a + r.closed, 0),
    open_seconds: openSeconds,
    rss_mib: {
      before: before.map((u) => Math.round(u.rssBytes / 2 ** 20)),
      with_subscribers: connected.map((u) => Math.round(u.rssBytes / 2 ** 20)),
      after_run: after.map((u) => Math.round(u.rssBytes / 2 ** 20)),
      quiet_15_s_later: quiet.map((u) => Math.round(u.rssBytes / 2 ** 20)),
    },
    heap_mib: { after_run: heapAfter, quiet_15_s_later: heapQuiet },
    first_instance_after_full_collection_mib: collected,
    rss_per_subscriber_kib: Math.round(rssDelta / SUBSCRIBERS / 102.4) / 10,
    server_cpu_us_per_delivery: delivered ? Math.round((cpuMs * 1000) / delivered) : null,
    server_cpu_share_of_run: Math.round((cpuMs / (SECONDS * 1000)) * 100) / 100,
    // Where the machine's cores went from the measured run's start to its last receipt, in cores: the
    // instances, the client processes, this process (the creates' sender), PostgreSQL, Redis, and the rest (the kernel, other processes).
    cores_busy: coresBusy({
      machine: machineAfter.busy - machineConnected.busy,
      machineTotal: machineAfter.total - machineConnected.total,
      instancesMs: cpuMs,
      clientsMs: clientsAfter.reduce((a, ms, i) => a + ms - clientsConnected[i]!, 0),
      benchMs: (benchCpu.user + benchCpu.system) / 1000,
      postgresMs,
      redisMs,
      runMs,
    }),
    client_errors: reports.flatMap((r) => r.firstErrors).slice(0, 5),
  };
  for (const c of clients) c.kill('SIGKILL');
  for (const s of servers) s.child.kill('SIGTERM');
  await Promise.all(servers.map((s) => new Promise((r) => (s.child.exitCode === null ? s.child.once('exit', r) : r(null)))));
  return result;
}

await recreateDatabase(ADMIN_URL, DATABASE_URL);
for (const n of INSTANCES) console.log(JSON.stringify(await scenario(n), null, 2));
