/**
 * The quarantine step (consumer/quarantine-step.ts), on the in-memory world: rules 11a and 11b
 * stop the consumer instead of quarantining, a record that cannot be written stops it too, an
 * outcome-unknown record waits for a person with its verification execution started, a crash's
 * record is signed by its stage, the envelope keeps what SQS delivered, and the alarm's log line
 * names the record. Mutation testing (npm run mutation) found each of these unpinned by the
 * tests it runs: emptying the capacity check, the share stop or the verification start failed
 * none of them.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BREAKER_STATE } from '../../contract/control';
import { ENV } from '../../contract/env';
import { QUARANTINED_LOG_EVENT } from '../../contract/log-events';
import { drive } from '../../sim/world/drive';
import { testWorld } from '../../sim/world/scenario';
import type { Step } from '../../sim/world/scripted-processor';

afterEach(() => {
  vi.restoreAllMocks();
});

const permanent: readonly (readonly Step[])[] = [
  [
    { do: 'stage', name: 'parse' },
    { do: 'throw', error: 'permanent' },
  ],
];

describe('rule 11a: a quarantine at capacity stops the consumer', () => {
  it('given one open record and a capacity of 1, then the next poison message stops the consumer and is not quarantined', async () => {
    // Prepare
    const error = vi.spyOn(Logger.prototype, 'error');
    const { world } = testWorld({
      env: { [ENV.quarantineCapacity]: '1' },
      scripts: { P1: permanent, P2: permanent },
    });
    world.queue.send({ messageId: 'id-P1', body: 'P1' });
    await drive(world);
    world.queue.send({ messageId: 'id-P2', body: 'P2' });

    // Act
    await world.deliver(world.environment(), 1);

    // Assess
    expect([...world.quarantine.records.values()].map((record) => record.messageId)).toEqual(['id-P1']);
    expect(world.control.breaker?.record).toMatchObject({
      state: BREAKER_STATE.open,
      reason: 'quarantine-capacity',
      stop: true,
    });
    expect(error).toHaveBeenCalledWith('quarantine at capacity: stopping the consumer', {
      event: 'quarantine-capacity',
      capacity: 1,
    });
    expect(world.queue.messages.has('id-P2')).toBe(true);
  });
});

describe('rule 11b: many quarantines at once stop quarantining', () => {
  it('given every recent message quarantined, then the share stops the consumer before the next record', async () => {
    // Prepare: a window of 4 and a threshold of a half; four poison messages in a row.
    const error = vi.spyOn(Logger.prototype, 'error');
    const { world } = testWorld({
      env: { [ENV.quarantineShareWindow]: '4', [ENV.quarantineShareThreshold]: '0.5' },
      scripts: { P1: permanent, P2: permanent, P3: permanent, P4: permanent },
    });
    const env = world.environment();
    for (const label of ['P1', 'P2', 'P3', 'P4']) world.queue.send({ messageId: `id-${label}`, body: label });

    // Act
    for (let poll = 0; poll < 4; poll++) await world.deliver(env, 1);

    // Assess
    expect(world.control.breaker?.record).toMatchObject({ reason: 'quarantine-share', stop: true });
    expect(world.quarantine.records.size).toBeLessThan(4);
    expect(error).toHaveBeenCalledWith('quarantine share above threshold: pausing instead of quarantining', {
      event: 'quarantine-share-exceeded',
    });
  });

  it('given the same poison messages each on its last receive, then none is counted and all are quarantined', async () => {
    // Prepare: a receive count of 1: every delivery is the last.
    const { world } = testWorld({
      env: {
        [ENV.quarantineShareWindow]: '4',
        [ENV.quarantineShareThreshold]: '0.5',
        [ENV.backstopMaxReceiveCount]: '1',
      },
      scripts: { P1: permanent, P2: permanent, P3: permanent, P4: permanent },
    });
    const env = world.environment();
    for (const label of ['P1', 'P2', 'P3', 'P4']) world.queue.send({ messageId: `id-${label}`, body: label });

    // Act
    for (let poll = 0; poll < 4; poll++) await world.deliver(env, 1);

    // Assess
    expect(world.control.breaker?.record.state ?? BREAKER_STATE.closed).toBe(BREAKER_STATE.closed);
    expect(world.quarantine.records.size).toBe(4);
  });
});

describe('a record that cannot be written', () => {
  it('given the record write refused, then the consumer stops, names the record, and the message stays', async () => {
    // Prepare
    const error = vi.spyOn(Logger.prototype, 'error');
    const { world } = testWorld({
      scripts: { P1: permanent },
      faults: [{ at: 'quarantine.putRecord', error: 'access-denied' }],
    });
    world.queue.send({ messageId: 'id-P1', body: 'P1' });

    // Act
    await world.deliver(world.environment(), 1);

    // Assess
    expect(world.quarantine.records.size).toBe(0);
    expect(world.control.breaker?.record).toMatchObject({ reason: 'quarantine-unwritable', stop: true });
    expect(error).toHaveBeenCalledWith('quarantine could not be written: stopping the consumer', {
      event: 'quarantine-unwritable',
      quarantineId: expect.any(String),
      error: expect.any(Error),
    });
    expect(world.queue.messages.has('id-P1')).toBe(true);
  });
});

describe('what a record keeps', () => {
  it('given an outcome-unknown message, then its record awaits an operator and its verification run is started', async () => {
    // Prepare
    const { world } = testWorld({
      scripts: { M1: [[{ do: 'external', name: 'charge', result: 'crash-after' }]] },
    });
    world.queue.send({ messageId: 'id-M1', body: 'M1' });

    // Act
    await drive(world, { maxPolls: 3 });

    // Assess
    const [record] = [...world.quarantine.records.values()];
    expect(record).toMatchObject({ reason: 'outcome-unknown', status: 'awaiting-operator' });
    const runs = [...world.operations.executions.values()].filter(
      (run) => run.input.kind === 'outcome-unknown',
    );
    expect(runs.map((run) => run.input)).toEqual([
      { kind: 'outcome-unknown', quarantineId: record.id, messageKey: 'id-M1' },
    ]);
  });

  it('given a permanent error, then its record is open, signed by the error, and no verification run starts', async () => {
    // Prepare
    const warn = vi.spyOn(Logger.prototype, 'warn');
    const { world } = testWorld({ scripts: { P1: permanent } });
    world.queue.send({
      messageId: 'id-P1',
      body: 'P1',
      messageAttributes: { tenant: { dataType: 'String', stringValue: 't-1' } },
    });

    // Act
    await drive(world);

    // Assess
    const [record] = [...world.quarantine.records.values()];
    expect(record).toMatchObject({ status: 'open', reason: 'permanent-error' });
    expect(record.errorSignature).not.toMatch(/^crash:/);
    expect(world.operations.executions.size).toBe(0);
    const envelope = JSON.parse(world.quarantine.objects.get(record.envelopeKey)?.toString('utf8') ?? '{}');
    expect(envelope).toMatchObject({
      quarantineId: record.id,
      messageId: 'id-P1',
      messageAttributes: { tenant: { dataType: 'String', stringValue: 't-1' } },
      attributes: expect.objectContaining({ ApproximateReceiveCount: '1' }),
    });
    expect(envelope).toHaveProperty('md5OfBody');
    expect(warn).toHaveBeenCalledWith('message quarantined', {
      event: QUARANTINED_LOG_EVENT,
      quarantineId: record.id,
      reason: 'permanent-error',
      messageId: 'id-P1',
      sourceQueue: expect.any(String),
    });
  });

  it('given a message that crashes every attempt, then its record is signed by the stage it died in', async () => {
    // Prepare
    const { world } = testWorld({ scripts: { C1: [[{ do: 'stage', name: 'render' }, { do: 'crash' }]] } });
    world.queue.send({ messageId: 'id-C1', body: 'C1' });

    // Act
    await drive(world);

    // Assess
    const [record] = [...world.quarantine.records.values()];
    expect(record).toMatchObject({ reason: 'crash-limit', errorSignature: 'crash:render' });
  });
});
