import { defineConfig } from 'vitest/config';

// Integration and rehearsal tests each start their own moto server on a free loopback port,
// so files may run in parallel; two workers match the two cores CI has.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
