import { describe, expect } from 'vitest';
import { isPublicAddress } from '../src/webhooks/target.ts';
import { it } from './support/app.ts';
import { TEST_DB } from './support/database.ts';

it.override('appOptions', { env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' } });

/** Private IPv4 addresses hidden in IPv6 forms (src/webhooks/target.ts). Database-independent: PGlite only. */
describe.skipIf(TEST_DB !== 'pglite')('webhook targets in IPv6 forms', () => {
  const embeddingPrivate = [
    'http://[::127.0.0.1]/hook', // IPv4-compatible loopback
    'http://[::a9fe:a9fe]/latest', // IPv4-compatible link-local (cloud metadata)
    'http://[::10.0.0.8]/',
    'http://[::ffff:127.0.0.1]/', // IPv4-mapped
    'http://[::ffff:0:a9fe:a9fe]/', // IPv4-translated
    'http://[64:ff9b::127.0.0.1]/', // NAT64 well-known prefix
    'http://[64:ff9b:1::a00:8]/', // NAT64 local-use prefix
    'http://[2002:7f00:1::1]/', // 6to4 of 127.0.0.1
    'http://[2002:a9fe:a9fe::1]/', // 6to4 of 169.254.169.254
    'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', // Teredo
  ];

  it('refuses at registration every IPv6 form that embeds an IPv4 address', async ({ t }) => {
    for (const url of embeddingPrivate) {
      const refused = await t.rest('POST', '/webhooks', { url, events: ['order.status_changed'] });
      expect(refused.status, url).toBe(400);
      expect(refused.body.result, url).toBe('url must not point to a loopback, private or link-local address');
    }
  });

  it('refuses those forms as resolved addresses too, and still admits a public IPv6 address', () => {
    for (const address of ['::7f00:1', '::a9fe:a9fe', '::a00:8', '64:ff9b:1::a00:8', '2002:a9fe:a9fe::1']) {
      expect(isPublicAddress(address), address).toBe(false);
    }
    expect(isPublicAddress('2606:4700:4700::1111')).toBe(true);
    expect(isPublicAddress('8.8.8.8')).toBe(true);
  });
});
