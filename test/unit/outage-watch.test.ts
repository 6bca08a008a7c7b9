/**
 * consumer/outage-watch.ts with fakes: what a failure event is written with, when rule 7 trips,
 * and what the trip does (only the winner of the trip starts the pause; a pause that cannot be
 * started is said, never thrown). Mutation testing found these unpinned.
 */
import { describe, expect, it, vi } from 'vitest';
import type { ConsumerDeps } from '../../lambdas/consumer/deps';
import { pauseConsumption, reportFailureEvent } from '../../lambdas/consumer/outage-watch';
import { UnrecordedFailures } from '../../lambdas/consumer/unrecorded-failures';
import type { BreakerRecord } from '../../lambdas/core/breaker';
import { NO_TRIAL } from '../../lambdas/core/isolation';
import { defaultPolicy } from '../../lambdas/core/types';

const NOW = new Date('2026-12-02T10:00:00Z');
const TIMINGS = { cooldownSeconds: 30, maxCooldownSeconds: 3600, probeSeconds: 30, pollSeconds: 5 };

function fakes(
  options: {
    tripped?: boolean;
    startPause?: () => Promise<unknown>;
    recorded?: { key: string; at: number; kind?: 'transient' | 'crash' }[];
  } = {},
) {
  const logs: [string, string, unknown][] = [];
  const logger = {
    warn: (message: string, fields: unknown) => logs.push(['warn', message, fields]),
    error: (message: string, fields: unknown) => logs.push(['error', message, fields]),
  };
  const control = {
    recordFailureEvent: vi.fn(async () => undefined),
    failuresSince: vi.fn(async () => options.recorded ?? []),
    tripBreaker: vi.fn(async () =>
      options.tripped === false ? { tripped: false, epoch: 7 } : { tripped: true, epoch: 8 },
    ),
  };
  const operations = {
    startPause: vi.fn(options.startPause ?? (async () => ({ started: true, executionArn: 'arn' }))),
  };
  const deps = {
    logger,
    control,
    operations,
    now: () => NOW,
    newId: () => 'event-1',
    config: {
      policy: { ...defaultPolicy(), outageFailureThreshold: 2, outageWindowSeconds: 60 },
      breakerTimings: TIMINGS,
    },
  } as unknown as ConsumerDeps;
  return { deps, logs, control, operations };
}

/**
 * What a batch lends the report: its unrecorded events, a fresh read of the breaker and the
 * isolation trial (with its last pass), and when a record last completed in its environment.
 */
function session(breaker?: BreakerRecord, passes: { trial?: number; completed?: number } = {}) {
  const isolation = passes.trial === undefined ? NO_TRIAL : { ...NO_TRIAL, lastPassAt: passes.trial };
  const controlNow = vi.fn(async () => ({ breaker, isolation, replayFrozen: false }));
  return { unrecorded: new UnrecordedFailures(), controlNow, lastCompletedAt: () => passes.completed };
}

const OPEN: BreakerRecord = {
  state: 'open',
  reason: 'outage',
  epoch: 3,
  openedAt: NOW.getTime() - 1000,
  cooldownSeconds: 30,
  stop: false,
};

describe('reportFailureEvent', () => {
  it('given an event, then it is written to expire ten windows after now', async () => {
    const { deps, control } = fakes();
    await reportFailureEvent(deps, session(), { key: 'msg:a', kind: 'transient' });
    expect(control.recordFailureEvent).toHaveBeenCalledWith({
      key: 'msg:a',
      kind: 'transient',
      at: NOW,
      eventId: 'event-1',
      expiresAt: Math.floor(NOW.getTime() / 1000) + 600,
    });
  });

  it('given events of two keys in the window, then an outage: it says so and pauses', async () => {
    const at = NOW.getTime() - 1000;
    const { deps, logs, control } = fakes({
      recorded: [
        { key: 'msg:a', at },
        { key: 'msg:b', at },
      ],
    });
    await expect(reportFailureEvent(deps, session(), { key: 'msg:b', kind: 'crash' })).resolves.toBe(true);
    expect(logs[0]).toEqual([
      'warn',
      'outage suspected: pausing consumption',
      { event: 'outage-detected', distinctKeys: 2 },
    ]);
    expect(control.tripBreaker).toHaveBeenCalledWith({ reason: 'outage', now: NOW, stop: false });
  });

  describe('crashes that a message passing afterwards answers (rule 7, issue 37)', () => {
    const before = NOW.getTime() - 2000;
    const after = NOW.getTime() - 1000;
    /** The event written now, as the window's read gives it back. */
    const written = { key: 'msg:b', at: NOW.getTime(), kind: 'crash' } as const;

    it.each([
      ['a message passed the trial after the recorded crash', { trial: after }],
      ['a record completed in this environment after it', { completed: after }],
    ])('given %s, then the crash no longer counts: no outage', async (_, passes) => {
      const { deps, control } = fakes({ recorded: [written, { key: 'msg:a', at: before, kind: 'crash' }] });
      await expect(
        reportFailureEvent(deps, session(undefined, passes), { key: 'msg:b', kind: 'crash' }),
      ).resolves.toBe(false);
      expect(control.failuresSince).toHaveBeenCalledWith(expect.any(Date), 2, after);
      expect(control.tripBreaker).not.toHaveBeenCalled();
    });

    it.each([
      ['the trial pass is the later', { trial: after, completed: before }],
      ['the completion is the later', { trial: before, completed: after }],
    ])(
      'given both a trial pass and a completion, %s, then the later one answers a crash between them: no outage',
      async (_, passes) => {
        // Prepare: msg:a crashed after the earlier pass and before the later one.
        const between = NOW.getTime() - 1500;
        const { deps, control } = fakes({
          recorded: [written, { key: 'msg:a', at: between, kind: 'crash' }],
        });

        // Act
        const paused = await reportFailureEvent(deps, session(undefined, passes), {
          key: 'msg:b',
          kind: 'crash',
        });

        // Assess
        expect(paused).toBe(false);
        expect(control.failuresSince).toHaveBeenCalledWith(expect.any(Date), 2, after);
        expect(control.tripBreaker).not.toHaveBeenCalled();
      },
    );

    it('given the pass came before the crash, then both crashes count: an outage', async () => {
      const { deps } = fakes({ recorded: [written, { key: 'msg:a', at: after, kind: 'crash' }] });
      await expect(
        reportFailureEvent(deps, session(undefined, { trial: before }), { key: 'msg:b', kind: 'crash' }),
      ).resolves.toBe(true);
    });

    it('given a transient error before the pass, then it still counts: only crashes are answered so', async () => {
      const { deps } = fakes({ recorded: [written, { key: 'msg:a', at: before, kind: 'transient' }] });
      await expect(
        reportFailureEvent(deps, session(undefined, { completed: after }), { key: 'msg:b', kind: 'crash' }),
      ).resolves.toBe(true);
    });
  });

  it('given the breaker found open by a fresh read, then no event and no trip are written, and the verdict still counts the event (issue 24)', async () => {
    // Prepare: another environment tripped it since this one cached it closed.
    const { deps, control } = fakes({ recorded: [{ key: 'msg:a', at: NOW.getTime() - 1000 }] });
    const found = session(OPEN);

    // Act
    const paused = await reportFailureEvent(deps, found, { key: 'msg:b', kind: 'transient' });

    // Assess: msg:a recorded and msg:b in hand make two keys, the threshold here.
    expect(paused).toBe(true);
    expect(found.controlNow).toHaveBeenCalledTimes(1);
    expect(control.recordFailureEvent).not.toHaveBeenCalled();
    expect(control.tripBreaker).not.toHaveBeenCalled();
  });

  it('given the breaker found open and one key in the window, then no outage: the failure is judged as before', async () => {
    const { deps, control } = fakes({ recorded: [] });
    await expect(reportFailureEvent(deps, session(OPEN), { key: 'msg:b', kind: 'crash' })).resolves.toBe(
      false,
    );
    expect(control.recordFailureEvent).not.toHaveBeenCalled();
  });

  it.each([
    [
      'half-open: the probe is judged on the window',
      { ...OPEN, state: 'half-open', probeSuccesses: 0, probeFailures: 0, probeRepeatFailures: 0 },
    ],
    ['closed', { state: 'closed', epoch: 3, cooldownSeconds: 30, stop: false }],
    ['absent', undefined],
  ] as [string, BreakerRecord | undefined][])(
    'given the breaker found %s, then the event is written',
    async (_, breaker) => {
      const { deps, control } = fakes();
      await reportFailureEvent(deps, session(breaker), { key: 'msg:a', kind: 'transient' });
      expect(control.recordFailureEvent).toHaveBeenCalledTimes(1);
    },
  );

  it('given the fresh read fails, then the event is written and judged as before: the read only saves writes', async () => {
    // Prepare: the fake's window holds both keys, as the table would after the write.
    const recorded = [
      { key: 'msg:a', at: NOW.getTime() },
      { key: 'msg:b', at: NOW.getTime() },
    ];
    const { deps, control } = fakes({ recorded });
    const unreadable = {
      ...session(),
      controlNow: vi.fn(async () => Promise.reject(new Error('throttled'))),
    };
    await expect(reportFailureEvent(deps, unreadable, { key: 'msg:b', kind: 'transient' })).resolves.toBe(
      true,
    );
    expect(control.recordFailureEvent).toHaveBeenCalledTimes(1);
    expect(control.tripBreaker).toHaveBeenCalledTimes(1);
  });

  it('given one key in the window, then no outage', async () => {
    const { deps, control } = fakes({ recorded: [{ key: 'msg:a', at: NOW.getTime() }] });
    await expect(reportFailureEvent(deps, session(), { key: 'msg:a', kind: 'crash' })).resolves.toBe(false);
    expect(control.tripBreaker).not.toHaveBeenCalled();
  });
});

describe('pauseConsumption', () => {
  it('given this call won the trip, then it says so and starts the pause for its epoch', async () => {
    const { deps, logs, operations } = fakes();
    await pauseConsumption(deps, 'quarantine-capacity');
    expect(logs).toEqual([
      [
        'warn',
        'consumption paused',
        { event: 'paused', reason: 'quarantine-capacity', stop: true, epoch: 8 },
      ],
    ]);
    expect(operations.startPause).toHaveBeenCalledWith({
      epoch: 8,
      reason: 'quarantine-capacity',
      stop: true,
      ...TIMINGS,
    });
  });

  it('given another call won the trip, then nothing more: no line, no second pause', async () => {
    const { deps, logs, operations } = fakes({ tripped: false });
    await pauseConsumption(deps, 'outage');
    expect(logs).toEqual([]);
    expect(operations.startPause).not.toHaveBeenCalled();
  });

  it('given the pause cannot be started, then an error line, and the trip still stands (no throw)', async () => {
    const refused = new Error('states refused');
    const { deps, logs } = fakes({ startPause: () => Promise.reject(refused) });
    await expect(pauseConsumption(deps, 'outage')).resolves.toBe(8);
    expect(logs[1]).toEqual([
      'error',
      'the pause execution could not be started',
      { event: 'pause-unstarted', epoch: 8, error: refused },
    ]);
  });
});
