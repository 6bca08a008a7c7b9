/**
 * A proof that can fail (issue 19): each defect of planted-defects.ts, planted alone into the
 * real consumer, is reported by the campaign within 2,000 schedules of seed 1. The schedule by
 * which each invariant catches it is pinned: a change that makes the campaign slower to see one
 * shows here.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type CampaignReport, runCampaign } from '../../sim/campaign/explore';
import type { InvariantName } from '../../sim/campaign/invariants';
import { type Defect, planted } from '../../sim/campaign/planted-defects';

vi.mock('../../lambdas/core/delivery', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lambdas/core/delivery')>();
  const { plantedDelivery } = await import('../../sim/campaign/planted-defects');
  return {
    ...actual,
    decideDelivery: (...args: Parameters<typeof actual.decideDelivery>) =>
      plantedDelivery(actual.decideDelivery(...args), args[0], args[2]),
  };
});

vi.mock('../../lambdas/core/receive-limit', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lambdas/core/receive-limit')>();
  const { plantedLastReceive } = await import('../../sim/campaign/planted-defects');
  return {
    ...actual,
    isLastReceive: (...args: Parameters<typeof actual.isLastReceive>) =>
      plantedLastReceive(actual.isLastReceive(...args)),
  };
});

vi.mock('../../lambdas/consumer/work-context', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lambdas/consumer/work-context')>();
  const { plantedWorkContext } = await import('../../sim/campaign/planted-defects');
  return { ...actual, workContext: plantedWorkContext(actual.workContext) };
});

vi.mock('../../lambdas/consumer/record-lifecycle', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lambdas/consumer/record-lifecycle')>();
  const { plantedProcessRecord } = await import('../../sim/campaign/planted-defects');
  const { keyOfRecord } = await import('../../lambdas/consumer/begin-attempt');
  const keyFor = (...args: Parameters<typeof keyOfRecord>) => keyOfRecord(...args).key;
  return { ...actual, processRecord: plantedProcessRecord(actual.processRecord, keyFor) };
});

const SEED = 1;
const BUDGET = 2_000;

/**
 * Each defect, and the invariants that report it with the first schedule (index from seed 1) at
 * which each did when this was written (with the swarm and the seeded scheduler): they must
 * still report it by then. The oracle's five invariants each fail on at least one defect.
 */
const CAUGHT: Record<Defect, Partial<Record<InvariantName, number>>> = {
  'crash-never-charged': { 'oracle-charges-match-the-rules': 2, 'oracle-crash-alone-ends-at-the-limit': 2 },
  'collision-acknowledged-as-duplicate': { 'oracle-every-message-completed-or-kept': 3 },
  'keyless-pending-skipped': { 'oracle-charges-match-the-rules': 86, 'no-keyless-call-repeated': 81 },
  'last-receive-never-seen': { 'oracle-backstop-only-when-nothing-could-tell': 61 },
  'attempt-recorded-after-work': {
    'no-keyless-call-repeated': 0,
    'no-message-lost': 2,
    'oracle-quarantine-reason-by-the-rules': 3,
    'oracle-charges-match-the-rules': 5,
  },
};

describe(`the campaign catches planted defects within ${BUDGET} schedules`, () => {
  afterEach(() => {
    delete planted.defect;
  });

  for (const [defect, expected] of Object.entries(CAUGHT) as [Defect, (typeof CAUGHT)[Defect]][]) {
    const schedules = Math.max(...Object.values(expected)) + 1;
    it(`given ${defect}, then it is reported by schedule #${schedules - 1}`, async () => {
      // Prepare
      planted.defect = defect;

      // Act
      const report = await runCampaign({ seed: SEED, schedules, shrinkPerInvariant: 0 });

      // Assess
      expect(schedules).toBeLessThanOrEqual(BUDGET);
      const first = firstSchedules(report);
      for (const [name, at] of Object.entries(expected)) {
        expect(first[name as InvariantName], `${name} reports ${defect}`).toBeLessThanOrEqual(at);
      }
    }, 120_000);
  }

  it('given no defect planted, then the same schedules hold', async () => {
    // Act
    const last = Math.max(...Object.values(CAUGHT).flatMap((caught) => Object.values(caught)));
    const report = await runCampaign({ seed: SEED, schedules: last + 1, shrinkPerInvariant: 0 });

    // Assess
    expect(report.violations.map((violation) => `${violation.invariant}: ${violation.detail}`)).toEqual([]);
  }, 120_000);
});

/** The first schedule at which each violated invariant failed. */
function firstSchedules(report: CampaignReport): Partial<Record<InvariantName, number>> {
  const first: Partial<Record<InvariantName, number>> = {};
  for (const violation of report.violations) first[violation.invariant] ??= violation.index;
  return first;
}
