import { defineConfig } from 'vitest/config';

/**
 * The deployment topology's tests (`npm run test:cluster`, README "Deployment"): HAProxy, three gateways,
 * PgBouncer, Patroni with two PostgreSQL nodes, etcd and Redis, all started by test/cluster/topology.ts
 * from Debian's packages. Outside `npm test`: one topology, its failures injected one after another.
 */
export default defineConfig({
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['test/cluster/**/*.test.ts'],
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
