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
 * The port the process listens on, or undefined while it listens on none: a listening TCP socket in
 * /proc/net/tcp whose inode is one of the process's open files (Linux).
 */
function listeningPort(pid: number): number | undefined {
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
    return undefined; // the process is gone
  }
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      const fields = line.trim().split(/\s+/);
      if (fields[3] === '0A' && inodes.has(fields[9]!)) return Number.parseInt(fields[1]!.split(':')[1]!, 16);
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
  let output = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  let base = '';
  let killed = false;
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      // A running server that fails by itself (an exit code; signals come from the tests) shows in a test
      // only as refused connections: its own last words say why. One that fails to start throws them below.
      if (!killed && base && code !== null && code !== 0) {
        process.stderr.write(`server ${base} exited with code ${code}; its last output:\n${output.slice(-6000)}\n`);
      }
      resolve(code);
    }),
  );
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`server exited:\n${output}`);
    const port = env.PORT && env.PORT !== '0' ? Number(env.PORT) : listeningPort(child.pid!);
    // Only once the process itself listens: before that, whatever else holds the port would answer.
    if (port !== undefined && listeningPort(child.pid!) === port) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) {
          base = `http://127.0.0.1:${port}`;
          break;
        }
      } catch {
        // listening, not answering yet
      }
    }
    if (Date.now() - started > 60_000) throw new Error(`server did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    child,
    output: () => output,
    exited,
    async kill(signal = 'SIGKILL') {
      killed = true;
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
