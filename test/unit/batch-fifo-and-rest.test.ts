/**
 * Steps of a batch (consumer/batch.ts) that mutation testing (npm run mutation, issue 19) found
 * unpinned, after batch-steps.test.ts: the FIFO path (a record not finished holds the rest of its
 * message group back, unprocessed, for as long as it waits, while other groups flow; a quarantined
 * record does not hold its group), the time guard's first record, a stop that an outage in the
 * same batch does not turn into an outage, a record on its last receive run once, a record set
 * aside whose quarantine failed staying in the queue, the order of redelivered records (one
 * ledger read, only for two or more), a trial started mid-batch serializing the rest, and the
 * lines logged when a best-effort call (an early acknowledgement, a hold-back, a pause check, the
 * ledger read) fails.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ENV } from '../../contract/env';
import { SourceQueueError } from '../../lambdas/ports/errors';
import { setOpenBreaker } from '../../sim/world/breaker-states';
import { recordLines, withRecordsRewritten } from '../../sim/world/drive';
import { testWorld } from '../../sim/world/scenario';
import type { Step } from '../../sim/world/scripted-processor';
import type { World } from '../../sim/world/world';

afterEach(() => {
  vi.restoreAllMocks();
});

/** Seconds until a queued message is visible again, from `from` (epoch ms). */
const visibleIn = (world: World, id: string, from: number) =>
  ((world.queue.messages.get(id)?.visibleAt ?? 0) - from) / 1000;

/** The record lines logged so far (INFO, DEBUG when completed), as [messageId, outcome kind], in order. */
const recordKinds = (...spies: Parameters<typeof recordLines>) =>
  recordLines(...spies).map(([messageId, outcome]) => [messageId, outcome.kind]);

/**
 * A consumer environment of a FIFO queue (PQ_FIFO): the world's queue does not model groups, so
 * each record gets the MessageGroupId SQS would give it, the letter after "id-" (id-A1: group A).
 */
function fifoEnvironment(world: World) {
  return withRecordsRewritten(world.environment({ [ENV.fifo]: 'true' }), (record) => ({
    ...record,
    attributes: { ...record.attributes, MessageGroupId: record.messageId.slice(3, 4) },
  }));
}

/** A1 went back and A2, behind it in group A, never started and is visible again at once; B1 completed. */
function expectGroupHeldBehindA1(
  world: World,
  result: Awaited<ReturnType<World['deliver']>>,
  at: number,
): void {
  expect(result).toMatchObject({ kind: 'returned', failed: ['id-A1', 'id-A2'] });
  expect(world.ledger.get('id-A2')).toBeUndefined();
  expect(world.ledger.get('id-B1')?.state).toBe('completed');
  expect(visibleIn(world, 'id-A2', at)).toBe(0);
}

function sendAll(world: World, labels: readonly string[]): void {
  for (const label of labels) world.queue.send({ messageId: `id-${label}`, body: label });
}

describe('a FIFO batch keeps each message group in order', () => {
  it('given a record of a group failing for a retry, then the rest of its group is held back unprocessed for the same delay while another group flows', async () => {
    // Prepare: A1 fails transiently (a retry after a backoff); A2 is behind it in group A.
    const { world } = testWorld({ scripts: { A1: [[{ do: 'throw', error: 'transient' }]] } });
    sendAll(world, ['A1', 'B1', 'A2', 'B2']);
    const info = vi.spyOn(Logger.prototype, 'info');
    const debug = vi.spyOn(Logger.prototype, 'debug');
    const at = world.clock.now();

    // Act
    const result = await world.deliver(fifoEnvironment(world), 10);

    // Assess: A2 never started and comes back with A1, not a visibility timeout later.
    expect(result).toMatchObject({ kind: 'returned', failed: ['id-A1', 'id-A2'] });
    expect(recordKinds(info, debug)).toStrictEqual([
      ['id-A1', 'retry'],
      ['id-B1', 'completed'],
      ['id-B2', 'completed'],
    ]);
    expect(world.ledger.get('id-A2')).toBeUndefined();
    const retryIn = visibleIn(world, 'id-A1', at);
    expect(retryIn).toBeGreaterThan(0);
    expect(visibleIn(world, 'id-A2', at)).toBe(retryIn);
  });

  it('given a record of a group handed back (our own table refused its start), then the rest of its group comes back with it at once', async () => {
    // Prepare
    const { world } = testWorld({ faults: [{ at: 'ledger.start', error: 'throttle', key: 'id-A1' }] });
    sendAll(world, ['A1', 'A2', 'B1']);
    const at = world.clock.now();

    // Act
    const result = await world.deliver(fifoEnvironment(world), 10);

    // Assess
    expectGroupHeldBehindA1(world, result, at);
  });

  it('given a record of a group quarantined, then the rest of its group runs and the record says the order was broken', async () => {
    // Prepare
    const { world } = testWorld({ scripts: { A1: [[{ do: 'throw', error: 'permanent' }]] } });
    sendAll(world, ['A1', 'A2']);

    // Act
    const result = await world.deliver(fifoEnvironment(world), 10);

    // Assess
    expect(result).toMatchObject({ kind: 'returned', failed: [] });
    expect(world.ledger.get('id-A2')?.state).toBe('completed');
    expect([...world.quarantine.records.values()]).toMatchObject([
      { messageId: 'id-A1', reason: 'permanent-error', messageGroupId: 'A', orderBroken: true },
    ]);
  });

  it('given a record set aside beside another on its last receive and handed back, then the rest of its group comes back with it unprocessed', async () => {
    // Prepare: B1 and A1 are on their last receive; B1 runs, A1 is set aside to be quarantined
    // unrun, but our table refuses its start write, so A1 stays in the queue. A2 is behind it.
    const { world } = testWorld({ faults: [{ at: 'ledger.start', error: 'throttle', key: 'id-A1' }] });
    sendAll(world, ['B1', 'A1', 'A2']);
    for (const id of ['id-B1', 'id-A1']) {
      const message = world.queue.messages.get(id);
      if (message !== undefined) message.receiveCount = 9;
    }
    const at = world.clock.now();

    // Act
    const result = await world.deliver(fifoEnvironment(world), 10);

    // Assess: A2 never started, and comes back at once with A1.
    expectGroupHeldBehindA1(world, result, at);
  });

  it('given the hand-back of a held-back record fails, then a warning names it and the record still goes back', async () => {
    // Prepare: A1 is handed back; ChangeMessageVisibility refuses A2's receipt handle.
    const { world } = testWorld({ faults: [{ at: 'ledger.start', error: 'throttle', key: 'id-A1' }] });
    sendAll(world, ['A1', 'A2']);
    const warn = vi.spyOn(Logger.prototype, 'warn');
    const delay = world.queue.delay.bind(world.queue);
    vi.spyOn(world.queue, 'delay').mockImplementation(async (receiptHandle, seconds) => {
      if (receiptHandle === world.queue.messages.get('id-A2')?.receiptHandle)
        throw new SourceQueueError('ChangeMessageVisibility failed: throttled');
      return delay(receiptHandle, seconds);
    });

    // Act
    const result = await world.deliver(fifoEnvironment(world), 10);

    // Assess
    expect(result).toMatchObject({ kind: 'returned', failed: ['id-A1', 'id-A2'] });
    expect(warn).toHaveBeenCalledWith('held-back FIFO record keeps its visibility timeout', {
      event: 'fifo-hold-back-failed',
      messageId: 'id-A2',
      error: expect.any(SourceQueueError),
    });
  });
});

describe('the time guard', () => {
  it('given an environment whose longest record would not fit, then the first record of an invocation still runs and the next goes back at once', async () => {
    // Prepare: M1 takes 28 s of the 30 s function timeout; the guard then wants 31 s per record.
    const { world } = testWorld({ scripts: { M1: [[{ do: 'work', ms: 28_000 }]] } });
    const env = world.environment();
    sendAll(world, ['M1']);
    await world.deliver(env, 1);
    sendAll(world, ['M2', 'M3']);
    const at = world.clock.now();

    // Act
    const result = await world.deliver(env, 2);

    // Assess: M3 is not charged (never started) and is visible again at once.
    expect(result).toMatchObject({ kind: 'returned', failed: ['id-M3'] });
    expect(world.ledger.get('id-M2')?.state).toBe('completed');
    expect(world.ledger.get('id-M3')).toBeUndefined();
    expect(visibleIn(world, 'id-M3', at)).toBe(0);
  });
});

describe('a stop and an outage in the same batch', () => {
  it('given the batch stopped for a person and then paused for an outage, then its records keep their visibility timeout', async () => {
    // Prepare: one open record and a capacity of 1, so P2's quarantine stops consumption; M3,
    // beside it, fails transiently a second later, and one failure is an outage.
    const permanent = [[{ do: 'throw', error: 'permanent' } as const]];
    const slowTransient: readonly (readonly Step[])[] = [
      [
        { do: 'work', ms: 1_000 },
        { do: 'throw', error: 'transient' },
      ],
    ];
    const { world } = testWorld({
      env: {
        [ENV.quarantineCapacity]: '1',
        [ENV.outageFailureThreshold]: '1',
        [ENV.inProcessConcurrency]: '2',
      },
      scripts: { P1: permanent, P2: permanent, M3: slowTransient },
    });
    sendAll(world, ['P1']);
    await world.deliver(world.environment(), 1);
    sendAll(world, ['P2', 'M3']);
    const at = world.clock.now();

    // Act
    const result = await world.deliver(world.environment(), 2);

    // Assess: the stop is kept; nothing comes back before a person has looked (six times the
    // attempt timeout is the visibility timeout the world receives with).
    expect(result).toMatchObject({ kind: 'returned', failed: ['id-P2', 'id-M3'] });
    expect(world.control.breaker?.record).toMatchObject({ reason: 'quarantine-capacity', stop: true });
    expect({ P2: visibleIn(world, 'id-P2', at), M3: visibleIn(world, 'id-M3', at) }).toStrictEqual({
      P2: 6 * 30,
      M3: 6 * 30,
    });
  });
});

describe('records on their last receive', () => {
  it('given a redelivered record on its last receive, then it runs once in its batch', async () => {
    // Prepare: M1 was received 9 times (of the backstop's 10); M2 is fresh.
    const { world } = testWorld();
    sendAll(world, ['M1', 'M2']);
    const last = world.queue.messages.get('id-M1');
    if (last === undefined) throw new Error('not queued');
    last.receiveCount = 9;
    const info = vi.spyOn(Logger.prototype, 'info');
    const debug = vi.spyOn(Logger.prototype, 'debug');

    // Act
    await world.deliver(world.environment(), 2);

    // Assess
    expect(recordKinds(info, debug)).toStrictEqual([
      ['id-M1', 'completed'],
      ['id-M2', 'completed'],
    ]);
  });

  it('given a record set aside beside another whose quarantine write fails, then it is handed back, not acknowledged', async () => {
    // Prepare: both received 9 times; P1 runs (SQS order), P2 is set aside and its quarantine
    // record cannot be written.
    const { world } = testWorld({
      faults: [{ at: 'quarantine.putRecord', error: 'server-error', key: 'id-P2', times: 10 }],
    });
    sendAll(world, ['P1', 'P2']);
    for (const id of ['id-P1', 'id-P2']) {
      const message = world.queue.messages.get(id);
      if (message === undefined) throw new Error('not queued');
      message.receiveCount = 9;
    }
    const acknowledge = vi.spyOn(world.queue, 'acknowledge');

    // Act
    const result = await world.deliver(world.environment(), 2);

    // Assess: P2 is still in the queue, with no quarantine record: nothing is lost. Only P1,
    // which ran and completed, was acknowledged at once.
    const handleOf = (id: string) => result.records.find((record) => record.messageId === id)?.receiptHandle;
    expect(result).toMatchObject({ kind: 'returned', failed: ['id-P2'] });
    expect(world.queue.messages.has('id-P2')).toBe(true);
    expect(world.quarantine.records.size).toBe(0);
    expect(acknowledge.mock.calls).toStrictEqual([[handleOf('id-P1')]]);
  });
});

describe('the order of redelivered records', () => {
  /** M1 crashed its batch before M2 started: both come back, M1 first in SQS order. */
  async function crashedBeforeTheSecondStarted() {
    const made = testWorld({ scripts: { M1: [[{ do: 'crash' }], []] } });
    const { world } = made;
    sendAll(world, ['M1', 'M2']);
    await world.deliver(world.environment(), 2);
    world.clock.advanceTo(world.queue.nextVisibleAt() ?? world.clock.now());
    return made;
  }

  it('given two redelivered records, the first one in SQS order crashed, then the one that never started runs first', async () => {
    // Prepare
    const { world } = await crashedBeforeTheSecondStarted();
    const info = vi.spyOn(Logger.prototype, 'info');
    const debug = vi.spyOn(Logger.prototype, 'debug');

    // Act
    await world.deliver(world.environment(), 2);

    // Assess
    expect(recordKinds(info, debug)).toStrictEqual([
      ['id-M2', 'completed'],
      ['id-M1', 'completed'],
    ]);
  });

  it('given the ledger cannot be read for the order, then a warning says so and the records run in SQS order', async () => {
    // Prepare
    const { world } = await crashedBeforeTheSecondStarted();
    vi.spyOn(world.ledger, 'glance').mockRejectedValueOnce(new Error('ProvisionedThroughputExceeded'));
    const info = vi.spyOn(Logger.prototype, 'info');
    const debug = vi.spyOn(Logger.prototype, 'debug');
    const warn = vi.spyOn(Logger.prototype, 'warn');

    // Act
    await world.deliver(world.environment(), 2);

    // Assess
    expect(warn).toHaveBeenCalledWith('redelivered records run in SQS order: the ledger could not be read', {
      event: 'suspect-order-unread',
      error: expect.any(Error),
    });
    expect(recordKinds(info, debug)).toStrictEqual([
      ['id-M1', 'completed'],
      ['id-M2', 'completed'],
    ]);
  });

  it('given a single redelivered record, then the ledger is not read for an order', async () => {
    // Prepare: M1 was received once before; M2 is fresh.
    const { world } = testWorld();
    sendAll(world, ['M1', 'M2']);
    const redelivered = world.queue.messages.get('id-M1');
    if (redelivered === undefined) throw new Error('not queued');
    redelivered.receiveCount = 1;
    const glance = vi.spyOn(world.ledger, 'glance');

    // Act
    await world.deliver(world.environment(), 2);

    // Assess
    expect(world.ledger.get('id-M1')?.state).toBe('completed');
    expect(glance).not.toHaveBeenCalled();
  });
});

describe('a trial started in the middle of a batch', () => {
  it('given a fresh record that finds a crash several messages shared, then the rest of its batch runs one record at a time', async () => {
    // Prepare: A crashes its environment while B is in flight beside it (an unattributable
    // crash); once that attempt is over, C arrives under A's business key, with D, E and F.
    const body = (label: string, orderId: string) => JSON.stringify({ label, orderId });
    const aSecondOfWork: readonly (readonly Step[])[] = [[{ do: 'work', ms: 1_000 }]];
    const { world } = testWorld({
      env: { [ENV.messageKeyPath]: 'orderId', [ENV.inProcessConcurrency]: '2' },
      scripts: {
        A: [[{ do: 'work', ms: 500 }, { do: 'crash' }]],
        B: aSecondOfWork,
        C: aSecondOfWork,
        D: aSecondOfWork,
        E: aSecondOfWork,
        F: aSecondOfWork,
      },
    });
    world.queue.send({ messageId: 'id-A', body: body('A', 'o-A') });
    world.queue.send({ messageId: 'id-B', body: body('B', 'o-B') });
    await world.deliver(world.environment(), 2);
    world.clock.advance(60_000);
    world.queue.send({ messageId: 'id-C', body: body('C', 'o-A') });
    for (const label of ['D', 'E', 'F'])
      world.queue.send({ messageId: `id-${label}`, body: body(label, `o-${label}`) });
    const at = world.clock.now();
    const start = world.ledger.start.bind(world.ledger);
    const startedAt: [string, number][] = [];
    vi.spyOn(world.ledger, 'start').mockImplementation(async (attempt) => {
      startedAt.push([attempt.key, world.clock.now() - at]);
      return start(attempt);
    });

    // Act
    await world.deliver(world.environment(), 4);

    // Assess: C and D had started together; once C started the trial, E and F ran one after the other.
    expect(world.control.isolation).toMatchObject({ active: true });
    expect(startedAt).toStrictEqual([
      ['o-A', 0],
      ['o-D', 0],
      ['o-E', 1_000],
      ['o-F', 2_000],
    ]);
  });
});

describe('best-effort calls that fail', () => {
  it('given a finished record whose early acknowledgement fails, then a warning names it and the batch response acknowledges it', async () => {
    // Prepare: M1 was received once before, so the batch acknowledges finished records at once.
    const { world } = testWorld({ faults: [{ at: 'queue.acknowledge', error: 'throttle' }] });
    sendAll(world, ['M1']);
    const redelivered = world.queue.messages.get('id-M1');
    if (redelivered === undefined) throw new Error('not queued');
    redelivered.receiveCount = 1;
    const warn = vi.spyOn(Logger.prototype, 'warn');

    // Act
    const result = await world.deliver(world.environment(), 1);

    // Assess
    expect(result).toMatchObject({ kind: 'returned', failed: [] });
    expect(world.queue.messages.has('id-M1')).toBe(false);
    expect(warn).toHaveBeenCalledWith('finished record left to the batch response', {
      event: 'acknowledge-failed',
      messageId: 'id-M1',
      error: expect.any(Error),
    });
  });

  it('given an open breaker whose pause run cannot be started, then an error names the epoch and the records go back', async () => {
    // Prepare
    const { world } = testWorld({ faults: [{ at: 'operations.startPause', error: 'throttle' }] });
    setOpenBreaker(world);
    sendAll(world, ['M1']);
    const error = vi.spyOn(Logger.prototype, 'error');

    // Act
    const result = await world.deliver(world.environment(), 1);

    // Assess
    expect(result).toMatchObject({ kind: 'returned', failed: ['id-M1'] });
    expect(error).toHaveBeenCalledWith('the pause execution could not be checked or restarted', {
      event: 'pause-unchecked',
      epoch: 1,
      error: expect.any(Error),
    });
  });
});
