import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { USER_BTC, USER_EVM } from '../support/fixtures.ts';

/** One HTTP call's outcome: its status (0 when the connection failed or timed out). */
export interface Reply {
  status: number;
  body: { status?: string; result?: Record<string, unknown> } | undefined;
}

/**
 * A client as the gateway sees it behind HAProxy: the call is made from the loopback address that stands for
 * `ip` (10.a.b.c connects from 127.a.b.c), so HAProxy appends that address to X-Forwarded-For and the
 * gateway, which trusts HAProxy's hop (TRUST_PROXY: the last one), sees one client per `ip`.
 */
export async function call(
  base: string,
  method: 'GET' | 'POST',
  path: string,
  ip: string,
  body?: unknown,
  timeoutMs = 15_000,
): Promise<Reply> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise<Reply>((resolve) => {
    const request = httpRequest(
      `${base}${path}`,
      {
        method,
        localAddress: ip.replace(/^10\./, '127.'),
        headers: payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
        timeout: timeoutMs,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', () => resolve({ status: 0, body: undefined }));
        response.on('end', () => {
          let parsed: Reply['body'];
          try {
            parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            parsed = undefined;
          }
          resolve({ status: response.statusCode ?? 0, body: parsed });
        });
      },
    );
    request.on('timeout', () => request.destroy(new Error('timed out')));
    request.on('error', () => resolve({ status: 0, body: undefined }));
    request.end(payload);
  });
}

/** Quote then order; the order id once acknowledged (201), else the failing step's status. */
export async function createOrder(base: string, ip: string, userId: string): Promise<{ orderId?: string; statuses: number[] }> {
  const quote = await call(base, 'POST', '/quotes', ip, {
    source: { asset: 'bitcoin:btc', amount: '10000000' },
    destination: { asset: 'ethereum:wbtc' },
  });
  if (quote.status !== 201) return { statuses: [quote.status] };
  const q = quote.body!.result as {
    quote_id: string;
    source: { asset: string; amount: string };
    destination: { asset: string; amount: string };
  };
  const order = await call(base, 'POST', '/orders', ip, {
    user_id: userId,
    quote_id: q.quote_id,
    source: { asset: q.source.asset, recipient: USER_BTC, amount: q.source.amount },
    destination: { asset: q.destination.asset, recipient: USER_EVM, amount: q.destination.amount },
    commitment_hash: createHash('sha256').update(randomBytes(32)).digest('hex'),
  });
  return order.status === 201
    ? { orderId: order.body!.result!.order_id as string, statuses: [201, 201] }
    : { statuses: [201, order.status] };
}
