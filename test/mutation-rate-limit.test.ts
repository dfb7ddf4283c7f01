import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { it } from './support/app.ts';

it.override('appOptions', { env: { RATE_LIMIT_PER_IP: '20', TRUST_PROXY: 'true' } });

const QUOTE_FIELD = (n: number) =>
  `q${n}: createQuote(input: { source: { asset: "bitcoin:btc", amount: "10000000" }, destination: { asset: "ethereum:wbtc" } }) { quoteId }`;
const aliased = (count: number) => `mutation { ${Array.from({ length: count }, (_, i) => QUOTE_FIELD(i)).join(' ')} }`;

/** Each top-level mutation field spends from the caller's budget (src/http/rate-limit.ts). */
it('counts 15 aliased createQuote in one request as 15 requests', async ({ t }) => {
  const ip = `10.${randomBytes(3).join('.')}`;
  const send = (query: string) =>
    t.app.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
      body: JSON.stringify({ query }),
    });
  const first = await send(aliased(15));
  const firstBody = await first.json();
  expect(firstBody.errors).toBeUndefined();
  expect(Object.keys(firstBody.data)).toHaveLength(15);
  // 15 of 20 spent: another 15 do not fit, and none of them is created.
  const second = await (await send(aliased(15))).json();
  expect(second.data ?? null).toBeNull();
  expect(second.errors[0].extensions.code).toBe('RATE_LIMITED');
  expect(second.errors[0].message).toMatch(/rate limit of 20 requests per minute reached/);
  // A query of many fields is one request.
  const read = await (await send(`{ ${Array.from({ length: 3 }, (_, i) => `c${i}: __typename`).join(' ')} }`)).json();
  expect(read.errors).toBeUndefined();
});
