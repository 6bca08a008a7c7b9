// Mutation testing of the decisions (lambdas/core) and the orchestration (lambdas/consumer):
// npm run mutation. See tools/mutation/README.md for what counts, the survivors file and CI.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  testRunner: 'vitest',
  vitest: { configFile: 'tools/mutation/vitest.config.mts', related: true },
  checkers: ['typescript'],
  tsconfigFile: 'tools/mutation/tsconfig.json',
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  coverageAnalysis: 'perTest',
  mutate: ['lambdas/core/**/*.ts', 'lambdas/consumer/**/*.ts'],
  // One test process: the machine's two cores are shared.
  concurrency: 1,
  logLevel: 'warn',
  reporters: ['json', 'progress'],
  jsonReporter: { fileName: 'reports/mutation/stryker-full.json' },
  incrementalFile: 'reports/mutation/stryker-incremental.json',
  timeoutMS: 10_000,
  timeoutFactor: 2,
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  ignorePatterns: [
    '.venv',
    '.venv-localstack',
    '.kafka',
    'cdk.out',
    'dist',
    'bench',
    'console',
    'coverage',
    'reports',
    '.scratch',
    '.pq-local',
    'docs',
  ],
};
