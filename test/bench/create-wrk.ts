/**
 * The service's create pairs loaded by wrk (`/usr/bin/wrk`, Debian's package `wrk`), the C load generator, as the
 * floor's pairs are by pgbench: autocannon, in this Node process, spent about three times pgbench's CPU per pair on
 * the same two cores it measured (test/bench/README.md, The floors). The script (written to
 * test/bench/create-pair.lua, not committed) keeps, per wrk thread, a queue of the quotes answered: each request
 * sent takes the oldest for its order (`POST /orders`, a new user and a fresh commitment, the quote's own amounts)
 * or, when none waits, asks for a quote (`POST /quotes`, QUOTE_BODY). So every quote is used once, by one order,
 * and each thread's requests alternate quote and order (a thread's connections share its queue). Pairs are the
 * orders answered 201; any other answer fails the run.
 *
 * Its latency percentiles are wrk's, which it corrects for coordinated omission (a request slower than twice the
 * mean gap between one connection's requests adds the samples that would have been sent meanwhile): higher than
 * autocannon's raw ones for the same answers, and not comparable with the reads' in the same table.
 *
 *   WRK=/path/to/wrk   (default /usr/bin/wrk)
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BTC_ADDRESS, EVM_ADDRESS, QUOTE_BODY, runLoadGenerator } from './create-floor.ts';

export const WRK = process.env.WRK ?? '/usr/bin/wrk';
export const WRK_SCRIPT_PATH = fileURLToPath(new URL('./create-pair.lua', import.meta.url));

/** wrk's version as it prints it ("wrk 4.1.0"), or that it is missing; it exits 1 after printing its usage. */
export function wrkVersion(): string {
  const printed = spawnSync(WRK, ['--version'], { encoding: 'utf8' });
  const version = /^wrk (\S+)/.exec(printed.stdout ?? '');
  return version ? `wrk ${version[1]}` : `wrk not found at ${WRK}`;
}

/** The Lua script: the queue of quotes, the order body, and the counts `done` prints for runWrkPairs. */
export function wrkPairScript(): string {
  const lua = (text: string) => JSON.stringify(text); // a JSON string of ASCII is a Lua string literal too
  const orderHead = (source: string) =>
    lua(
      `","source":{"asset":"bitcoin:btc","recipient":"${BTC_ADDRESS}","amount":"${source}"},"destination":{"asset":"ethereum:wbtc","recipient":"${EVM_ADDRESS}","amount":"`,
    );
  return `-- Written by test/bench/create-wrk.ts: quote + order pairs, each quote used by one order.
local quoteBody = ${lua(JSON.stringify(QUOTE_BODY))}
local headers = { ["Content-Type"] = "application/json" }
local queue, head, tail = {}, 1, 0
local hex = "0123456789abcdef"
quotes, orders, refused = 0, 0, 0

local threads = {}
function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

function init(args)
  -- A seed drawn by the bench for each run (crypto), and the thread's own: no two runs draw the same commitments.
  math.randomseed(tonumber(args[1]) + id)
end

local function randomHex(n)
  local t = {}
  for i = 1, n do
    local k = math.random(1, 16)
    t[i] = hex:sub(k, k)
  end
  return table.concat(t)
end

function request()
  if head <= tail then
    local quote = queue[head]
    queue[head] = nil
    head = head + 1
    local body = '{"user_id":"bench-' .. randomHex(6) .. '","quote_id":"' .. quote[1] .. ${orderHead(QUOTE_BODY.source.amount)} ..
      quote[2] .. '"},"commitment_hash":"' .. randomHex(64) .. '"}'
    return wrk.format("POST", "/orders", headers, body)
  end
  return wrk.format("POST", "/quotes", headers, quoteBody)
end

function response(status, _, body)
  if status ~= 201 then
    refused = refused + 1
  elseif body:find('"order_id"', 1, true) then
    orders = orders + 1
  else
    local id = body:match('"quote_id":"(q_[^"]+)"')
    local amount = body:match('"destination":{[^}]-"amount":"(%d+)"')
    if id and amount then
      quotes = quotes + 1
      tail = tail + 1
      queue[tail] = { id, amount }
    else
      refused = refused + 1
    end
  end
end

function done(summary)
  local q, o, r = 0, 0, 0
  for _, thread in ipairs(threads) do
    q = q + thread:get("quotes")
    o = o + thread:get("orders")
    r = r + thread:get("refused")
  end
  io.write(string.format("pairs: quotes %d orders %d refused %d duration_us %d\\n", q, o, r, summary.duration))
end
`;
}

export interface WrkPairs {
  /** Orders answered 201 per second of the run. */
  pairsPerSecond: number;
  orders: number;
  seconds: number;
  /** Per request (a quote or an order), ms, corrected for coordinated omission as wrk does (above). */
  p50: number;
  p99: number;
  /** wrk's user + system CPU over the run, ms. */
  clientCpuMs: number;
}

/**
 * `connections` connections on two threads (pgbench's -j 2; one for an odd count, which wrk would round down) for
 * `seconds`; throws on any refused answer or socket error.
 */
export async function runWrkPairs(port: number, connections: number, seconds: number): Promise<WrkPairs> {
  if (!existsSync(WRK)) throw new Error(`${WRK} not found: the create pairs are loaded by wrk (apt-get install wrk), or set WRK`);
  writeFileSync(WRK_SCRIPT_PATH, wrkPairScript());
  const { stdout, cpuMs } = await runLoadGenerator(WRK, [
    '-t',
    String(connections % 2 === 0 ? 2 : 1),
    '-c',
    String(connections),
    '-d',
    `${seconds}s`,
    '--timeout',
    '10s',
    '--latency',
    '-s',
    WRK_SCRIPT_PATH,
    `http://127.0.0.1:${port}`,
    '--',
    String(randomBytes(4).readUInt32BE()),
  ]);
  const counts = /pairs: quotes (\d+) orders (\d+) refused (\d+) duration_us (\d+)/.exec(stdout);
  if (!counts) throw new Error(`wrk printed no counts:\n${stdout}`);
  const socketErrors = /Socket errors: (.*)/.exec(stdout);
  if (Number(counts[3]) > 0 || socketErrors) {
    throw new Error(
      `create pairs under wrk: ${counts[3]} answers not 201${socketErrors ? `, socket errors ${socketErrors[1]}` : ''}\n${stdout}`,
    );
  }
  const elapsed = Number(counts[4]) / 1e6;
  const orders = Number(counts[2]);
  return {
    pairsPerSecond: orders / elapsed,
    orders,
    seconds: elapsed,
    p50: wrkMs(/\n\s+50%\s+([\d.]+)(us|ms|s)/.exec(stdout)),
    p99: wrkMs(/\n\s+99%\s+([\d.]+)(us|ms|s)/.exec(stdout)),
    clientCpuMs: cpuMs,
  };
}

/** A latency as wrk prints it ("812.00us", "3.21ms", "1.02s"), in ms. */
function wrkMs(match: RegExpExecArray | null): number {
  if (!match) return Number.NaN;
  return Number(match[1]) * ({ us: 0.001, ms: 1, s: 1000 } as Record<string, number>)[match[2]!]!;
}
