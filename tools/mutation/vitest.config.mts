import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The tests Stryker runs against each mutant of lambdas/core and lambdas/consumer (npm run
// mutation): the unit tests on the in-memory world, and a campaign split into small tests so
// that each mutant runs only the slices that reach it (tools/mutation/README.md says why).
// Tests that start processes or servers are left out: they reach no mutated code.
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['test/unit/**/*.test.ts'],
    exclude: [
      // pq's exit codes for every command: console's needs console/, which the sandbox leaves out.
      'test/unit/cli-exit-codes.test.ts',
      'test/unit/on-project-node.test.ts',
      'test/unit/scenario-schema.test.ts',
      'test/unit/scripts-help.test.ts',
      'test/unit/try-out.test.ts',
    ],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
