/**
 * The default rehearsal runs four pipelines at once, each with its own local AWS, on whatever
 * machine the user has. A healthy message's first invocation in a fresh execution environment
 * (after a crash) makes the SDK's first requests; on a 2-core machine that took over 1 s, so a
 * 1 s consumer timeout killed it and charged a crash (`npm run rehearsal` failed about 1 run in 3).
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCENARIOS, MIN_CONSUMER_TIMEOUT_SECONDS } from '../../local/rehearsal/default-scenarios';

describe('the default rehearsal scenarios', () => {
  it.each(DEFAULT_SCENARIOS.map((scenario) => [scenario.name, scenario] as const))(
    'given %s, then its invocations have time for a fresh environment on a busy machine',
    (_, scenario) => {
      // Assess
      expect(scenario.consumerTimeoutSeconds).toBeGreaterThanOrEqual(MIN_CONSUMER_TIMEOUT_SECONDS);
    },
  );
});
