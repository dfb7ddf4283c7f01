import { defineConfig } from 'vitest/config';

/**
 * Fault tests (`npm run test:faults`): they stop and start the machine's PostgreSQL and kill server
 * processes, so they run alone, one file at a time, after the main suite.
 */
export default defineConfig({
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['test/faults/**/*.test.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
