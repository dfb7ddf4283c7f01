import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { describe, expect } from 'vitest';
import { createLogger } from '../src/logger.ts';
import { it } from './support/app.ts';
import { eventually, listen } from './support/ws.ts';

const lines: string[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    lines.push(String(chunk));
    done();
  },
});

it.override('appOptions', { logger: createLogger('info', sink) });

interface LogLine {
  level: number;
  msg: string;
  path?: string;
  status?: number;
}

/** Sends headers promising 1000 bytes, 10 of them, then drops the connection. */
async function abortMidBody(port: number, path: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":"bcde`);
      setTimeout(() => {
        socket.destroy();
        resolve();
      }, 100);
    });
    socket.on('error', reject);
  });
}

/**
 * A client that drops its connection mid-body made a bad request, not the server a failure: it is
 * logged as a client error (no error-level line, no 500), so it cannot set off the error alerts.
 */
describe('a client that aborts mid-body', () => {
  it.for(['/orders', '/graphql'])('on POST %s is a client error in the log, not an internal one', async (path, { t }) => {
    const server = await listen(t);
    try {
      const port = Number(new URL(server.base).port);
      lines.length = 0;
      await abortMidBody(port, path);
      await eventually('the request is logged', () => lines.some((l) => (JSON.parse(l) as LogLine).msg === 'request'));
      const logged = lines.map((l) => JSON.parse(l) as LogLine);
      const access = logged.find((l) => l.msg === 'request');
      expect(access?.path).toBe(path);
      expect(access?.status).toBe(400);
      // pino's error level is 50.
      expect(logged.filter((l) => l.level >= 50)).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
