import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';

/** A TCP port nothing listens on right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** `npm start` as a child process, so a test can kill it, restart it, or stop the database under it. */
export interface ServerProcess {
  base: string;
  child: ChildProcess;
  /** Everything it wrote (JSON log lines). */
  output: () => string;
  /** Its exit code (null when a signal ended it). */
  exited: Promise<number | null>;
  /** Sends the signal (SIGKILL unless told) and waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * The TCP ports the process listens on (the API's, and any other it opened: METRICS_PORT, an inspector):
 * listening sockets in /proc/net/tcp{,6} whose inodes are among the process's open files. Linux only, as the
 * suite is.
 */
export function listeningPorts(pid: number): number[] {
  let inodes: Set<string>;
  try {
    inodes = new Set(
      readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
        try {
          const socket = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
          return socket ? [socket[1]!] : [];
        } catch {
          return []; // closed while listed
        }
      }),
    );
  } catch {
    return []; // the process is gone
  }
  const ports: number[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue; // tcp6 is missing on a kernel without IPv6
    }
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode; 0A is LISTEN
      const fields = line.trim().split(/\s+/);
      if (fields[3] === '0A' && inodes.has(fields[9]!)) ports.push(Number.parseInt(fields[1]!.split(':')[1]!, 16));
    }
  }
  return ports;
}

/** The first of `ports` that answers /health with 200. */
async function answeringHealth(ports: number[]): Promise<number | undefined> {
  for (const port of ports) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return port;
    } catch {
      // listening, not answering yet
    }
  }
  return undefined;
}

/**
 * Starts the server and resolves once it answers /health. It listens on a port the OS gives it (PORT=0)
 * unless `env.PORT` names one, and the port is read off the process itself: a port picked here and
 * handed over could be taken by another test's server in between, which would then answer for it.
 */
export async function startServer(env: Record<string, string>): Promise<ServerProcess> {
  if (process.platform !== 'linux') throw new Error("startServer reads the server's port from /proc: Linux only");
  let output = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  let base = '';
  let killed = false;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // A running server that ends without being told to (an exit code, an abort, the OOM killer) shows in a test
  // only as refused connections: its own last words say why. 'close': its output is all read by then.
  child.once('close', (code, signal) => {
    if (!killed && base)
      process.stderr.write(`server ${base} ended by itself (${signal ?? `exit code ${code}`}); its last output:\n${output.slice(-6000)}\n`);
  });
  const kill = async (signal: NodeJS.Signals = 'SIGKILL') => {
    killed = true;
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  try {
    const named = env.PORT && env.PORT !== '0' ? Number(env.PORT) : undefined;
    for (const started = Date.now(); ; await new Promise((r) => setTimeout(r, 100))) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`server exited:\n${output}`);
      // Only the process's own sockets are asked: before it listens, whatever else holds a port would answer.
      const own = listeningPorts(child.pid!);
      const port = await answeringHealth(named === undefined ? own : own.filter((p) => p === named));
      if (port !== undefined) {
        base = `http://127.0.0.1:${port}`;
        break;
      }
      if (Date.now() - started > 60_000) throw new Error(`server did not start:\n${output}`);
    }
  } catch (error) {
    // A server that did not start is not left running (it would hold leases, ports, connections).
    await kill();
    throw error;
  }
  return {
    base,
    child,
    output: () => output,
    exited,
    kill,
  };
}
