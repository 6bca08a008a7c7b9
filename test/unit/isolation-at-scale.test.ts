/**
 * Issue 22, defects 14 and 15, on the in-memory world with the pause machine played (the
 * campaign's runSchedule): after crashes that several messages shared, isolation trials must
 * point at single messages, so every poison message ends `crash-limit`, every healthy one
 * completes, and nothing reaches the backstop.
 */
import { describe, expect, it } from 'vitest';
import { runSchedule } from '../../sim/campaign/run-schedule';
import type { CampaignEvent, MessageSpec, Schedule } from '../../sim/campaign/schedule';

const POISON = new Set(['M17', 'M58', 'M99', 'M140', 'M181']);
const crashesTheParser = [{ do: 'stage', name: 'parse' } as const, { do: 'crash' } as const];

/**
 * Two environments polling at once, a poll every `paceSeconds` (a busy machine's mapping is
 * slow: the poison messages' crashes are then found together, in the same minute).
 */
function scaleSchedule(isolationTrialMessages: number, paceSeconds: number): Schedule {
  const messages: MessageSpec[] = Array.from({ length: 200 }, (_, index) => {
    const id = `M${index + 1}`;
    return { id, body: id, scripts: POISON.has(id) ? [crashesTheParser] : [[{ do: 'stage', name: 'work' }]] };
  });
  const events: CampaignEvent[] = Array.from({ length: 300 }, () => [
    { do: 'poll-pair', envs: [0, 1] } as const,
    { do: 'advance', seconds: paceSeconds } as const,
  ]).flat();
  return {
    seed: 14,
    config: {
      attemptLimit: 3,
      concurrency: 4,
      batchSize: 10,
      isolationTrialMessages,
      outageThreshold: 3,
      transientRetries: 3,
      cooldownSeconds: 60,
    },
    messages,
    events,
    answers: [],
  };
}

describe('isolation trials at scale (issue 22, defect 14)', () => {
  it.each([
    [1, 1],
    [20, 1],
    [1, 30],
    [20, 30],
  ])(
    'given 200 messages, 5 poison, batch 10, concurrency 4, two environments, a trial of %i and a poll every %i s, then 195 complete and 5 end crash-limit',
    async (trial, pace) => {
      // Act
      const { world, trace } = await runSchedule(scaleSchedule(trial, pace));

      // Assess
      const quarantined = [...world.quarantine.records.values()].map(
        (record) => `${record.messageKey}:${record.reason}`,
      );
      const receivesOfAPoison = Math.max(
        ...[...POISON].map((label) => trace.receives.filter((receive) => receive.key === label).length),
      );
      expect({
        completed: world.ledger.all().filter((item) => item.state === 'completed').length,
        quarantined: quarantined.sort(),
        backstop: world.queue.backstop.length,
        left: world.queue.messages.size,
      }).toStrictEqual({
        completed: 195,
        quarantined: [...POISON].map((label) => `${label}:crash-limit`).sort(),
        backstop: 0,
        left: 0,
      });
      // The bound: the crash they shared, the receives the outage it looked like held, three
      // crashes alone and the delivery that quarantines: 8 at most, below the backstop's 10.
      expect(receivesOfAPoison).toBeLessThanOrEqual(8);
    },
  );
});
