/**
 * The time guard inside a batch (consumer/batch.ts, issue 37 "Poisons at scale"; docs/behaviour.md
 * "Time guard"): the pool of fresh work leaves room for the first crash suspect, records cut go
 * back unrun and the consumer warns once per invocation (TIME_GUARD_CUT_LOG_EVENT), a record cut
 * after it was staggered keeps its staggered visibility, and the stagger says what it did
 * (SUSPECTS_STAGGERED_LOG_EVENT). Driven through the real consumer over the in-memory world, whose
 * function timeout is 30 s: the guard's margin is 3 s (a tenth of it).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SUSPECTS_STAGGERED_LOG_EVENT, TIME_GUARD_CUT_LOG_EVENT } from '../../contract/log-events';
import { testWorld } from '../../sim/world/scenario';
import type { Step } from '../../sim/world/scripted-processor';
import type { World } from '../../sim/world/world';

afterEach(() => {
  vi.restoreAllMocks();
});

const CUT_MESSAGE = 'records handed back unrun: no time left in the invocation for them';
const CUT_HINT =
  'each costs a receive toward the backstop: a smaller batch or a longer timeout fits the batch';
const STAGGERED_MESSAGE = 'records behind a crash suspect staggered';

const works = (ms: number): readonly (readonly Step[])[] => [[{ do: 'work', ms }]];

/** The warnings the time guard wrote, as logged. */
function cutWarnings(warn: { mock: { calls: unknown[][] } }): unknown[][] {
  return warn.mock.calls.filter(
    ([, fields]) => (fields as { event?: unknown })?.event === TIME_GUARD_CUT_LOG_EVENT,
  );
}

/** The stagger lines the consumer wrote, as logged. */
function staggerLines(info: { mock: { calls: unknown[][] } }): unknown[][] {
  return info.mock.calls.filter(
    ([, fields]) => (fields as { event?: unknown })?.event === SUSPECTS_STAGGERED_LOG_EVENT,
  );
}

/** Seconds from `from` until the message is visible again. */
const visibleIn = (world: World, id: string, from: number) =>
  ((world.queue.messages.get(id)?.visibleAt ?? 0) - from) / 1000;

/** Lets the world's clock run to the next visible message. */
function untilVisible(world: World): void {
  world.clock.advanceTo(world.queue.nextVisibleAt() ?? world.clock.now());
}

describe('the time guard leaves room for the first crash suspect (issue 37)', () => {
  it('given fresh work that would fill the invocation ahead of a message that crashed alone, then the last fresh records go back unrun and the crashed one runs', async () => {
    // Prepare: X crashed alone; its redelivery comes with four fresh records of 7, 5, 8 and 8 s.
    // A fresh record starts only if, after it, the longest record so far plus the 3 s margin is
    // still left for X: F1 (30 s left) and F2 (23 s left, 2 x (7 + 3) needed) start; F3 and F4
    // (18 s left) do not, and X starts with 18 s left. Without that room F3 would run and leave
    // X 10 s, less than 8 + 3: behind a steady flow of fresh work X would never start.
    const warn = vi.spyOn(Logger.prototype, 'warn');
    const info = vi.spyOn(Logger.prototype, 'info');
    const { world } = testWorld({
      scripts: {
        X: [[{ do: 'crash' }], []],
        F1: works(7_000),
        F2: works(5_000),
        F3: works(8_000),
        F4: works(8_000),
      },
    });
    world.queue.send({ messageId: 'id-X', body: 'X' });
    expect((await world.deliver(world.environment(), 1)).kind).toBe('crashed');
    untilVisible(world);
    for (const label of ['F1', 'F2', 'F3', 'F4']) world.queue.send({ messageId: `id-${label}`, body: label });
    const at = world.clock.now();
    warn.mockClear();
    info.mockClear();

    // Act
    const result = await world.deliver(world.environment(), 5);

    // Assess
    expect(result).toMatchObject({ kind: 'returned', failed: ['id-F3', 'id-F4'] });
    expect(world.ledger.get('id-X')).toMatchObject({ state: 'completed', attempts: 2 });
    expect(world.ledger.get('id-F3')).toBeUndefined();
    expect(world.ledger.get('id-F4')).toBeUndefined();
    // Back at once, for the next invocation, not a visibility timeout later.
    expect(visibleIn(world, 'id-F3', at)).toBe(12);
    expect(visibleIn(world, 'id-F4', at)).toBe(12);
    // Two records cut, one warning: once per invocation.
    expect(cutWarnings(warn)).toStrictEqual([
      [
        CUT_MESSAGE,
        {
          event: TIME_GUARD_CUT_LOG_EVENT,
          batchSize: 5,
          longestRecordMs: 7_000,
          timeoutSeconds: 30,
          hint: CUT_HINT,
        },
      ],
    ]);
    // One crash suspect: nobody behind it to stagger, and no line says otherwise.
    expect(staggerLines(info)).toStrictEqual([]);
  });
});

describe('the warning of records cut by the time guard', () => {
  it('given a batch whose last record does not fit the invocation, then it goes back unrun, uncharged, and one warning names the event, the batch, the longest record and the timeout', async () => {
    // Prepare: three records of 12 s in a 30 s invocation: after two, 6 s are left, less than
    // the longest record (12 s) plus the 3 s margin.
    const warn = vi.spyOn(Logger.prototype, 'warn');
    const info = vi.spyOn(Logger.prototype, 'info');
    const { world } = testWorld({ scripts: { M1: works(12_000), M2: works(12_000), M3: works(12_000) } });
    for (const label of ['M1', 'M2', 'M3']) world.queue.send({ messageId: `id-${label}`, body: label });
    const at = world.clock.now();

    // Act
    const result = await world.deliver(world.environment(), 3);

    // Assess
    expect(result).toMatchObject({ kind: 'returned', failed: ['id-M3'] });
    expect(world.ledger.get('id-M3')).toBeUndefined();
    expect(visibleIn(world, 'id-M3', at)).toBe(24);
    expect(cutWarnings(warn)).toStrictEqual([
      [
        CUT_MESSAGE,
        {
          event: TIME_GUARD_CUT_LOG_EVENT,
          batchSize: 3,
          longestRecordMs: 12_000,
          timeoutSeconds: 30,
          hint: CUT_HINT,
        },
      ],
    ]);
    // Fresh records only: nothing to stagger, no stagger line.
    expect(staggerLines(info)).toStrictEqual([]);
  });
});

describe('a staggered record cut by the time guard (issue 37)', () => {
  it('given two messages that crashed together, when the first runs long enough to cut the second, then the second keeps its staggered visibility and the stagger is logged', async () => {
    // Prepare: X1 crashes with X2 in flight beside it (a shared crash); at their redelivery X1
    // runs first and works 25 s, so X2 (staggered behind it before anything ran) is cut.
    const warn = vi.spyOn(Logger.prototype, 'warn');
    const info = vi.spyOn(Logger.prototype, 'info');
    const { world } = testWorld({
      env: { PQ_IN_PROCESS_CONCURRENCY: '2' },
      scripts: {
        X1: [
          [{ do: 'stage', name: 'a' }, { do: 'stage', name: 'b' }, { do: 'crash' }],
          [{ do: 'work', ms: 25_000 }],
        ],
        X2: [
          [
            { do: 'stage', name: 'a' },
            { do: 'stage', name: 'b' },
            { do: 'stage', name: 'c' },
          ],
        ],
      },
    });
    world.queue.send({ messageId: 'id-X1', body: 'X1' });
    world.queue.send({ messageId: 'id-X2', body: 'X2' });
    expect((await world.deliver(world.environment(), 2)).kind).toBe('crashed');
    untilVisible(world);
    const at = world.clock.now();
    warn.mockClear();
    info.mockClear();

    // Act
    const result = await world.deliver(world.environment(), 2);

    // Assess: X2 comes back as staggered, six function timeouts (180 s) and half a gap (15 s)
    // after the batch began, apart from X1: not at once.
    expect(result).toMatchObject({ kind: 'returned', failed: ['id-X2'] });
    expect(world.ledger.get('id-X1')?.state).toBe('completed');
    expect(world.ledger.get('id-X2')).toMatchObject({ state: 'in-flight', attempts: 1 });
    expect(visibleIn(world, 'id-X2', at)).toBe(195);
    expect(staggerLines(info)).toStrictEqual([
      [
        STAGGERED_MESSAGE,
        { event: SUSPECTS_STAGGERED_LOG_EVENT, messages: [{ messageId: 'id-X2', seconds: 195 }] },
      ],
    ]);
    expect(cutWarnings(warn)).toStrictEqual([
      [
        CUT_MESSAGE,
        {
          event: TIME_GUARD_CUT_LOG_EVENT,
          batchSize: 2,
          longestRecordMs: 25_000,
          timeoutSeconds: 30,
          hint: CUT_HINT,
        },
      ],
    ]);
  });
});
