import { describe, expect } from 'vitest';
import { seed } from '../prisma/scripts/seed/index.ts';
import { loadConfig } from '../src/config.ts';
import { runDocument } from '../src/rest/run-document.ts';
import { restOrder } from '../src/rest/routes.ts';
import { it, type TestApp } from './support/app.ts';

/**
 * REST's user page is rendered by PostgreSQL (src/rest/rendered-pages.ts), not by running its GraphQL
 * document. It must answer byte for byte what the document answers in the envelope: every status (by the
 * stored stage and by the clock), every intent column with values and nulls, decimals, times and text
 * that JSON must escape.
 */
describe('the rendered user page answers as the ordersByUser document', () => {
  let users: string[];
  const ODD_USER = 'o\'quote "back\\slash" ünïcode ✓ </script>';

  // The file's database, seeded and edited before its app starts.
  it.beforeAll(async ({ db }) => {
    const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent' });
    await seed({ db, config, orders: 120, users: 3, days: 10, seed: 'rendered' });
    const found = await db.prisma.order.groupBy({ by: ['userId'], orderBy: { userId: 'asc' } });
    users = found.map((u) => u.userId);
    // Text JSON must escape, and values the seed leaves null: the hop columns, prices with trailing zeros.
    await db.prisma.$executeRawUnsafe(`UPDATE orders SET user_id = $1 WHERE user_id = $2`, ODD_USER, users[2]);
    users[2] = ODD_USER;
    await db.prisma.$executeRawUnsafe(
      `UPDATE intents SET l1_hop = true, hop_bridge_factory = '0xfactory', hop_dest_blockchain_id = '43114',
        hop_recipient = E'line\\nbreak', hop_fee_token = 'native', hop_relayer_fee = 1000000000000000000000000000000000000000000000000000000000000000000000000000,
        final_chain = 'avalanche', final_token_address = '0xfinal', bridge_tx_hash = '0xbridge'
       WHERE swap_id IN (SELECT source_swap_id FROM orders WHERE user_id = $1 ORDER BY created_at DESC LIMIT 5)`,
      users[0],
    );
    await db.prisma.$executeRawUnsafe(
      `UPDATE orders SET source_token_price = 65000.50, dest_token_price = 0.000000012300 WHERE user_id = $1`,
      users[1],
    );
  }, 120_000);

  /** The ordersByUser document's answer, in REST's envelope, as the REST layer sent it before. */
  async function documentAnswer(t: TestApp, userId: string, page?: number, limit?: number): Promise<string> {
    const run = runDocument(t.app, new Request('http://test/orders/user'));
    const { data } = await run('ordersByUser', { userId, page, limit });
    const result = data.ordersByUser as { data: unknown[] };
    for (const order of result.data) restOrder(order);
    return JSON.stringify({ status: 'Success', result });
  }

  async function restAnswer(t: TestApp, path: string): Promise<string> {
    const reply = await t.app.fetch(`http://test${path}`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
    return reply.text();
  }

  /** Where two bodies part, with context; undefined when they are the same bytes. */
  const difference = (rendered: string, document: string) => {
    if (rendered === document) return undefined;
    let i = 0;
    while (rendered[i] === document[i]) i++;
    return { at: i, rendered: rendered.slice(Math.max(0, i - 80), i + 80), document: document.slice(Math.max(0, i - 80), i + 80) };
  };

  async function expectSameAnswers(t: TestApp) {
    const cases: [string, number | undefined, number | undefined][] = [
      ...users.map((u): [string, undefined, undefined] => [u, undefined, undefined]),
      [users[0]!, 1, 100],
      [users[1]!, 3, 7],
      [users[2]!, 2, 20],
      [users[0]!, 99, 20],
      ['nobody-at-all', undefined, undefined],
    ];
    for (const [userId, page, limit] of cases) {
      const query = new URLSearchParams();
      if (page !== undefined) query.set('page', String(page));
      if (limit !== undefined) query.set('limit', String(limit));
      const path = `/orders/user/${encodeURIComponent(userId)}?${query}`;
      expect(difference(await restAnswer(t, path), await documentAnswer(t, userId, page, limit)), path).toBeUndefined();
    }
  }

  it('every page, full, partial, past the end and of a user with none, is the same bytes', async ({ t }) => {
    const body = JSON.parse(await restAnswer(t, `/orders/user/${encodeURIComponent(users[0]!)}?limit=100`));
    expect(body.result.data.length).toBeGreaterThan(20);
    const statuses = new Set(
      (await Promise.all(users.map(async (u) => JSON.parse(await restAnswer(t, `/orders/user/${encodeURIComponent(u)}?limit=100`)))))
        .flatMap((b) => b.result.data)
        .map((o: { status: string }) => o.status),
    );
    expect(statuses.size).toBeGreaterThanOrEqual(6);
    expect(JSON.stringify(body)).toContain(
      '"hop_relayer_fee":"1000000000000000000000000000000000000000000000000000000000000000000000000000"',
    );
    await expectSameAnswers(t);
  });

  it('the status is the one at the service clock, as the document says it', async ({ t, clock }) => {
    // A day later pending orders have expired and unclaimed destinations are refunding: the clock's statuses.
    clock.advance(86_400);
    const body = JSON.parse(await restAnswer(t, `/orders/user/${encodeURIComponent(users[0]!)}?limit=100`));
    expect(body.result.data.map((o: { status: string }) => o.status)).toContain('expired');
    await expectSameAnswers(t);
  });
});
