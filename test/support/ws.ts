import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { WAIT_MS } from './sse.ts';
import { Wake } from './wake.ts';
import { WebSocket } from 'ws';
import { serveWebSockets } from '../../src/websocket.ts';
import type { TestApp } from './app.ts';
import type { Json } from './app.ts';

/** A test app on a real port: HTTP (REST, GraphQL, SSE) and GraphQL over WebSocket, as src/server.ts serves them. */
export interface Listening {
  base: string;
  wsUrl: string;
  close(): Promise<void>;
}

export async function listen(t: TestApp): Promise<Listening> {
  const server = createServer(t.app);
  const sockets = serveWebSockets(server, t.app, { limits: t.runtime.limits, logger: t.logger });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}/graphql`,
    async close() {
      await sockets.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface WsMessage {
  id?: string;
  type: string;
  payload?: Json;
}

/**
 * The graphql-transport-ws protocol spoken by hand, so a test sees every message and close code
 * exactly as the server sends them (graphql-ws' own client would retry, or hide the close code).
 */
export class WsSession {
  private readonly inbox: WsMessage[] = [];
  private readonly signal = new Wake();
  /** The close code and reason, once the socket is closed. */
  closedWith: { code: number; reason: string } | undefined;

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => {
      this.inbox.push(JSON.parse(String(data)) as WsMessage);
      this.signal.notify();
    });
    socket.on('close', (code, reason) => {
      this.closedWith = { code, reason: String(reason) };
      this.signal.notify();
    });
  }

  /** Connects and waits for connection_ack. */
  static async open(
    url: string,
    options: { connectionParams?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ): Promise<WsSession> {
    const socket = new WebSocket(url, 'graphql-transport-ws', { headers: options.headers });
    const session = new WsSession(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    session.send({ type: 'connection_init', payload: options.connectionParams ?? {} });
    const ack = await session.take((m) => m.type === 'connection_ack', 'connection_ack');
    if (!ack) throw new Error('no connection_ack');
    return session;
  }

  get isOpen(): boolean {
    return this.socket.readyState === WebSocket.OPEN && this.closedWith === undefined;
  }

  send(message: WsMessage | string): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  subscribe(id: string, query: string, variables?: Record<string, unknown>): void {
    this.send({ id, type: 'subscribe', payload: { query, variables } });
  }

  /** Tells the server this client is done with the operation (the client's unsubscribe). */
  complete(id: string): void {
    this.send({ id, type: 'complete' });
  }

  /** The next message for this operation id (next, error or complete), within ms. */
  next(id: string, ms = WAIT_MS): Promise<WsMessage> {
    return this.take((m) => m.id === id, `a message for ${id}`, ms);
  }

  /** Runs a query or mutation and returns its one result message (next or error); a next is followed by complete. */
  async run(id: string, query: string, variables?: Record<string, unknown>): Promise<WsMessage> {
    this.subscribe(id, query, variables);
    const answer = await this.next(id);
    if (answer.type === 'next') expect((await this.next(id)).type).toBe('complete');
    return answer;
  }

  /** Waits for the socket to close; returns its close code and reason. */
  async closed(ms = WAIT_MS): Promise<{ code: number; reason: string }> {
    const deadline = Date.now() + ms;
    while (!this.closedWith) {
      if (Date.now() > deadline) throw new Error(`the socket was still open after ${ms} ms`);
      await this.signal.wait(deadline - Date.now());
    }
    return this.closedWith;
  }

  async close(): Promise<void> {
    if (this.closedWith) return;
    this.socket.close(1000);
    await this.closed();
  }

  private async take(match: (m: WsMessage) => boolean, what: string, ms = WAIT_MS): Promise<WsMessage> {
    const deadline = Date.now() + ms;
    for (;;) {
      const index = this.inbox.findIndex(match);
      if (index >= 0) return this.inbox.splice(index, 1)[0]!;
      if (this.closedWith) throw new Error(`${what}: the socket closed (${this.closedWith.code} ${this.closedWith.reason})`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${what}: nothing within ${ms} ms; got ${JSON.stringify(this.inbox)}`);
      await this.signal.wait(left);
    }
  }
}

/** Polls a condition until it holds, within ms. */
export async function eventually(what: string, check: () => boolean | Promise<boolean>, ms = WAIT_MS): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: still false after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
