import { defineConfig } from 'vitest/config';

// Integration and rehearsal tests each start their own moto server on a free loopback port,
// so files may run in parallel; two workers match the two cores CI has.
export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'templates',
          include: ['test/cdk/**/*.test.ts'],
          // Template tests share one module registry per worker: loading aws-cdk-lib was most
          // of each file's time. They build their own apps and touch no global state.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'packages',
          include: ['test/package/**/*.test.ts'],
          // Each of them packs (or builds) the packages, whose prepack rewrites dist/: one file at a time.
          fileParallelism: false,
        },
      },
      {
        extends: true,
        test: { name: 'rest', include: ['test/**/*.test.ts'], exclude: ['test/cdk/**', 'test/package/**'] },
      },
    ],
  },
});
