import { defineConfig } from 'vitest/config';

/**
 * The whole suite runs twice: on embedded PGlite and on the real PostgreSQL (TEST_POSTGRES_URL,
 * default postgresql://postgres@127.0.0.1:5432/test). Each file opens a database of its own.
 * test/faults/ has its own config (npm run test:faults): it stops PostgreSQL, so it runs alone.
 */
export default defineConfig({
  resolve: {
    // graphql 16 has no "exports" map: Node loads its CJS build for the libraries, Vite would pick the
    // .mjs build for our sources, and two graphql instances cannot share a schema. Use one.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    // Two files at a time even on 2 cores (vitest's default is one fewer than the cores): most of a file's
    // time is spent waiting on servers, databases and browsers it started, not on the CPU.
    maxWorkers: 2,
    // A file's first test also waits for the file's app to start (test/support/app.ts, file-scoped fixtures): on
    // PGlite, with another file's work on the other core, that alone has taken most of 30 s.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: { name: 'pglite', include: ['test/*.test.ts'], env: { TEST_DB: 'pglite' } },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: ['test/*.test.ts'],
          // Files that test one database by nature run once, in the PGlite project.
          exclude: [
            'test/migrations-drift.test.ts',
            'test/registry.test.ts',
            'test/addresses.test.ts',
            'test/amounts.test.ts',
            'test/config.test.ts',
            'test/polling-loop.test.ts',
            'test/statement-batches.test.ts',
            'test/signed-quotes.test.ts',
            'test/pg-reader.test.ts',
            'test/openapi-clients.test.ts',
            'test/schema-baseline.test.ts',
            'test/route-matcher.test.ts',
            'test/shared-subscriptions.test.ts',
          ],
          env: { TEST_DB: 'postgres' },
          globalSetup: ['test/support/postgres-setup.ts'],
        },
      },
      {
        // Real chains: local Hardhat nodes (each file starts its own) and PostgreSQL.
        extends: true,
        test: {
          name: 'evm',
          include: ['test/evm/*.test.ts'],
          env: { TEST_DB: 'postgres' },
          globalSetup: ['test/support/postgres-setup.ts'],
          hookTimeout: 90_000,
        },
      },
    ],
  },
});
