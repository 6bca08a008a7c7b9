/** `replay --group --rate N`: sends start 1/N s apart on an injected clock, never in a catch-up burst. */
import { describe, expect, it } from 'vitest';
import { pacedDuration, pacer } from '../../cli/pacing';

/** A clock that only moves when slept on, or when a test says time passed. */
function fakeClock() {
  let now = Date.UTC(2030, 0, 1);
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => new Date(now),
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += ms;
    },
    pass: (ms: number) => {
      now += ms;
    },
  };
}

describe('pacer', () => {
  it('given 4 sends at 2 a second that take no time, then the first starts at once and each next 500 ms later', async () => {
    // Prepare
    const clock = fakeClock();
    const pace = pacer(2, clock);

    // Act
    for (let send = 0; send < 4; send++) await pace();

    // Assess
    expect(clock.sleeps).toStrictEqual([500, 500, 500]);
  });

  it('given sends that take part of the interval, then it waits only for the rest', async () => {
    // Prepare
    const clock = fakeClock();
    const pace = pacer(4, clock);

    // Act
    await pace();
    clock.pass(100);
    await pace();
    clock.pass(240);
    await pace();

    // Assess
    expect(clock.sleeps).toStrictEqual([150, 10]);
  });

  it('given a send slower than the interval, then the next starts at once and the one after a full interval later', async () => {
    // Prepare
    const clock = fakeClock();
    const pace = pacer(1, clock);

    // Act
    await pace();
    clock.pass(3_000);
    await pace();
    await pace();

    // Assess
    expect(clock.sleeps).toStrictEqual([1_000]);
  });
});

describe('pacedDuration', () => {
  it.each([
    [1, 5, '0 s'],
    [11, 5, '2 s'],
    [3, 0.5, '4 s'],
    [1201, 5, '4 min'],
  ])('given %d sends at %d a second, then it says %s', (count, rate, text) => {
    expect(pacedDuration(count, rate)).toBe(text);
  });
});
