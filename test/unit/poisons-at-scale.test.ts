/**
 * Issue 37: poisons that share batches, at scale, on the in-memory world with the pause machine
 * played (the campaign's runSchedule), judged by the campaign's own scale checks. The shape a new
 * user tried: 300 messages over 3 environments, batch 10, 4 in flight, a 6 s function timeout, a
 * trial of 5, limit 3, 7 messages that always crash the parser (two adjacent pairs) and 2 that
 * crash once. Before the fix every poison was received 10 times, the backstop's count, and with
 * more poisons some ended `receive-limit` beside healthy messages that did too.
 */
import { describe, expect, it } from 'vitest';
import { runSchedule } from '../../sim/campaign/run-schedule';
import { poisonsOf } from '../../sim/campaign/scale';
import { poisonsToldApart, settlesWithinBound } from '../../sim/campaign/scale-invariants';
import type { MessageSpec, Schedule } from '../../sim/campaign/schedule';

const crashesTheParser = [{ do: 'stage', name: 'parse' } as const, { do: 'crash' } as const];
const works = [{ do: 'stage', name: 'work' } as const, { do: 'work', ms: 20 } as const];

interface Shape {
  readonly messages: number;
  readonly poisons: readonly number[];
  readonly crashOnce: readonly number[];
  readonly environments: number;
}

function scheduleOf(shape: Shape): Schedule {
  const messages: MessageSpec[] = Array.from({ length: shape.messages }, (_, index) => {
    const id = `s${index + 1}`;
    if (shape.poisons.includes(index + 1)) return { id, body: id, scripts: [crashesTheParser] };
    if (shape.crashOnce.includes(index + 1)) return { id, body: id, scripts: [crashesTheParser, works] };
    return { id, body: id, scripts: [works] };
  });
  return {
    seed: 37,
    config: {
      attemptLimit: 3,
      concurrency: 4,
      batchSize: 10,
      isolationTrialMessages: 5,
      outageThreshold: 3,
      transientRetries: 3,
      cooldownSeconds: 60,
      consumerTimeoutSeconds: 6,
    },
    messages,
    events: [{ do: 'pollers', envs: shape.environments, seconds: 7200 }],
    answers: [],
  };
}

const ISSUE_SHAPE: Shape = {
  messages: 300,
  poisons: [17, 18, 90, 151, 152, 220, 288],
  crashOnce: [40, 260],
  environments: 3,
};

describe('poisons that share batches, at scale (issue 37)', () => {
  // The most receives a poison may take: the issue shape's as measured (its first crash, 3 alone,
  // the delivery that quarantines it, and at most 3 behind another poison's crash); with ten
  // poisons in runs of five, the backstop's count, where the last receive quarantines.
  it.each([
    ['the issue shape', ISSUE_SHAPE, 8],
    [
      'ten poisons in two runs of five, five environments',
      { ...ISSUE_SHAPE, poisons: [5, 6, 7, 8, 9, 50, 51, 52, 53, 54], environments: 5 },
      10,
    ],
    ['the issue shape in one environment', { ...ISSUE_SHAPE, environments: 1 }, 8],
  ] as const)(
    'given %s, then each poison ends crash-limit, the rest completes, within the bound',
    async (_, shape, maxReceives) => {
      // Act
      const observation = await runSchedule(scheduleOf(shape));

      // Assess
      const { world, trace } = observation;
      const poisons = shape.poisons.map((n) => `s${n}`);
      expect({
        completed: world.ledger.all().filter((item) => item.state === 'completed').length,
        quarantined: [...world.quarantine.records.values()]
          .map((record) => `${record.messageKey}:${record.reason}`)
          .sort(),
        backstop: world.queue.backstop.map((message) => message.messageId),
        left: world.queue.messages.size,
      }).toStrictEqual({
        completed: shape.messages - poisons.length,
        quarantined: poisons.map((id) => `${id}:crash-limit`).sort(),
        backstop: [],
        left: 0,
      });
      expect(poisonsToldApart(observation)).toStrictEqual({ applicable: true, problems: [] });
      expect(settlesWithinBound(observation)).toStrictEqual({ applicable: true, problems: [] });
      const receives = poisons.map((id) => trace.receives.filter((receive) => receive.key === id).length);
      expect(Math.max(...receives)).toBeLessThanOrEqual(maxReceives);
    },
  );
});

describe('which messages of a scale schedule are poison', () => {
  it('given a message with no script (it completes at once), then it is no poison; one that crashes on every script is', () => {
    // Prepare: the shape a shrunk schedule takes (the campaign's seed 796671983 shrank to it).
    const schedule = scheduleOf({ messages: 3, poisons: [2], crashOnce: [3], environments: 1 });
    const shrunk: Schedule = {
      ...schedule,
      messages: [{ id: 's0', body: 's0', scripts: [] }, ...schedule.messages],
    };

    // Act
    const poisons = poisonsOf(shrunk);

    // Assess
    expect([...poisons]).toStrictEqual(['s2']);
  });
});
