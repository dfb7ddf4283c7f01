import type { Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterAll, describe, expect } from 'vitest';
import { createHttpServer } from '../src/http/node-server.ts';
import { it } from './support/app.ts';
import { TEST_DB } from './support/database.ts';

const LIMITS = { headersTimeoutMs: 500, requestTimeoutMs: 800, keepAliveTimeoutMs: 500, maxRequestsPerSocket: 10 };

/** A client that sends a part of its request and then neither reads nor closes (allowHalfOpen keeps its side open). */
function silentClient(port: number, partial: string): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    socket.on('error', () => {});
    socket.on('connect', () => {
      socket.write(partial);
      socket.pause();
      resolve(socket);
    });
  });
}

const connections = (server: Server) =>
  new Promise<number>((resolve, reject) => server.getConnections((e, n) => (e ? reject(e) : resolve(n))));

async function waitForConnections(server: Server, wanted: (count: number) => boolean, withinMs: number): Promise<number> {
  const until = performance.now() + withinMs;
  let count = await connections(server);
  while (!wanted(count) && performance.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
    count = await connections(server);
  }
  return count;
}

/** Timed-out and refused sockets are destroyed, not left half-closed (src/http/node-server.ts). */
describe.skipIf(TEST_DB !== 'pglite')('timed-out sockets', () => {
  let server: Server;
  let port: number;
  const clients: Socket[] = [];
  it.beforeAll(async ({ t }) => {
    server = createHttpServer(t.app, LIMITS);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    for (const c of clients) c.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('releases the descriptors of clients that send partial headers, a partial body or garbage and then go silent', async () => {
    const partials = [
      ...Array.from({ length: 20 }, () => 'GET /chains HTTP/1.1\r\nHost: localhost\r\n'),
      ...Array.from({ length: 5 }, () => 'POST /quotes HTTP/1.1\r\nHost: localhost\r\ncontent-length: 100\r\n\r\n{"a":'),
      ...Array.from({ length: 5 }, () => 'NOT HTTP AT ALL\r\n\r\n'),
    ];
    clients.push(...(await Promise.all(partials.map((p) => silentClient(port, p)))));
    // The ones with partial headers are held until the headers timeout: the server has them all.
    expect(await waitForConnections(server, (n) => n >= 20, 400)).toBeGreaterThanOrEqual(20);
    // The clients keep their side open: only the server closing its side fully frees its descriptors.
    expect(await waitForConnections(server, (n) => n === 0, 6_000)).toBe(0);
    expect(clients.every((c) => !c.destroyed)).toBe(true);
  });
});
