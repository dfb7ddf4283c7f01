import { createHash, randomBytes } from 'node:crypto';
import { USER_BTC, USER_EVM } from '../support/fixtures.ts';

/** One HTTP call's outcome: its status (0 when the connection failed or timed out). */
export interface Reply {
  status: number;
  body: { status?: string; result?: Record<string, unknown> } | undefined;
}

/**
 * A client as the gateway sees it behind HAProxy: `ip` goes in X-Forwarded-For (HAProxy appends its own
 * hop; the gateway, with TRUST_PROXY, takes the first), so the load looks like many clients.
 */
export async function call(
  base: string,
  method: 'GET' | 'POST',
  path: string,
  ip: string,
  body?: unknown,
  timeoutMs = 15_000,
): Promise<Reply> {
  try {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { 'x-forwarded-for': ip, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    let parsed: Reply['body'];
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: response.status, body: parsed };
  } catch {
    return { status: 0, body: undefined };
  }
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
