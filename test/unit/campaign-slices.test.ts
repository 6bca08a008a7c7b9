/**
 * The fault campaign in slices, for mutation testing (npm run mutation): the first schedules of
 * the campaign that `npm test` runs (test/campaign/campaign.test.ts, whose 10,000 schedules hold
 * every invariant), each slice a test of its own. Stryker runs a mutant only against the tests
 * that reach it and stops at the first that fails, so a mutant the campaign catches costs one
 * slice, not the whole campaign, which runs in one beforeAll that Stryker cannot split. An open
 * invariant (the consumer still breaks it, invariants.ts OPEN_INVARIANTS) is left to the campaign
 * test, which expects it to fail.
 */
import { describe, expect, it } from 'vitest';
import { runOne } from '../../sim/campaign/explore';
import { generateSchedule } from '../../sim/campaign/generate';
import { OPEN_INVARIANTS } from '../../sim/campaign/invariants';
import { scheduleSeed } from '../../sim/campaign/prng';

/** The seed of test/campaign/campaign.test.ts. */
const SEED = 20_261_201;
const SLICES = 32;
const PER_SLICE = 25;

describe(`the campaign's first ${SLICES * PER_SLICE} schedules from seed ${SEED}, in slices`, () => {
  for (let slice = 0; slice < SLICES; slice++) {
    const first = slice * PER_SLICE;
    it(`schedules ${first}..${first + PER_SLICE - 1} hold every invariant but the open ones`, async () => {
      // Act
      const failing: string[] = [];
      for (let index = first; index < first + PER_SLICE; index++) {
        const result = await runOne(generateSchedule(scheduleSeed(SEED, index)));
        for (const verdict of result.verdicts)
          if (verdict.problems.length > 0 && !OPEN_INVARIANTS.has(verdict.invariant))
            failing.push(`#${index} ${verdict.invariant}: ${verdict.problems[0]}`);
      }

      // Assess
      expect(failing).toEqual([]);
    });
  }
});
