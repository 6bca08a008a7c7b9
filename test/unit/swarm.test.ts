/**
 * Issue 19, item 3: each schedule draws its own weight for each kind of trouble (swarm.ts), so
 * some schedules have none of a kind and others are dominated by it.
 */
import { describe, expect, it } from 'vitest';
import { generateSchedule } from '../../sim/campaign/generate';
import { Draw, mulberry32, scheduleSeed } from '../../sim/campaign/prng';
import { Swarm } from '../../sim/campaign/swarm';

const KINDS = [
  ['throttle', 1],
  ['crash', 1],
  ['timeout', 1],
] as const;

describe('swarm weights (issue 19, item 3)', () => {
  it('given one schedule, then a kind keeps the factor it drew, dimension by dimension', () => {
    const swarm = new Swarm(new Draw(mulberry32(7)));
    const first = swarm.weigh('fault kind', KINDS);
    expect(swarm.weigh('fault kind', KINDS)).toStrictEqual(first);
    expect(first.map(([, weight]) => weight).every((weight) => [0, 1 / 3, 1, 3].includes(weight))).toBe(true);
  });

  it('given every factor drawn 0, then the base weights, so something can still be drawn', () => {
    const swarm = new Swarm(new Draw(() => 0));
    expect(swarm.weigh('fault kind', KINDS)).toStrictEqual([...KINDS]);
  });

  it('given many long chaos schedules, then a tenth have no fault event and a tenth are mostly faults', () => {
    // Prepare: without the swarm, 3 of 215 such schedules had no fault and 3 were 30% faults.
    const long = Array.from({ length: 1000 }, (_, index) => generateSchedule(scheduleSeed(1, index))).filter(
      ({ events }) =>
        events.length >= 20 &&
        !events.some((event) => event.do === 'outside-outage' || event.do === 'table-outage'),
    );

    // Act
    const shares = long.map(
      ({ events }) => events.filter((event) => event.do === 'fault').length / events.length,
    );

    // Assess
    expect(shares.filter((share) => share === 0).length).toBeGreaterThan(long.length / 10);
    expect(shares.filter((share) => share >= 0.3).length).toBeGreaterThan(long.length / 10);
  });
});
