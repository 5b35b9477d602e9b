import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration tests start real servers and child processes; two cores, so keep parallelism modest.
    pool: 'forks',
    maxWorkers: 2,
    // src/ compiled once for the child processes the tests start (test/helpers/compiled-sources.ts).
    globalSetup: ['test/helpers/compiled-sources.ts'],
    testTimeout: 60_000,
    hookTimeout: 30_000,
  },
});
