/**
 * consumer/record-lifecycle.ts: what mutation testing (issue 19, npm run mutation) left unpinned
 * after record-lifecycle-steps.test.ts. The record line of a lost completion says why the message
 * went back; an outcome-unknown quarantine begun on the ledger keeps its error for whoever
 * finishes it; and a retried failure outside a half-open window is no failed probe, so the next
 * window counts that message's failure as a first one.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { QUARANTINE_STATUS } from '../../contract/quarantine';
import { deliverNext, drive } from '../../sim/world/drive';
import { halfOpenWindow } from '../../sim/world/half-open';
import { testWorld } from '../../sim/world/scenario';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a completion that cannot be written, in the record line', () => {
  it('given every try of the completion refused, then the record line says completion-lost and the message stays in the queue', async () => {
    // Prepare
    const info = vi.spyOn(Logger.prototype, 'info');
    const { world } = testWorld({ faults: [{ at: 'ledger.complete', error: 'throttle', times: 10 }] });
    world.queue.send({ messageId: 'id-M1', body: 'M1' });

    // Act
    const result = await deliverNext(world);

    // Assess
    expect(result).toMatchObject({ kind: 'returned', failed: ['id-M1'] });
    expect(world.queue.messages.has('id-M1')).toBe(true);
    expect(info).toHaveBeenCalledWith('record processed', {
      event: 'record',
      messageId: 'id-M1',
      outcome: { kind: 'returned', why: 'completion-lost' },
      calls: expect.anything(),
    });
  });
});

describe('an outcome-unknown quarantine finished at redelivery', () => {
  it('given a keyless call that timed out and a worker dying as it writes the record, then the record finished later names the call of unknown outcome', async () => {
    // Prepare: the quarantine is begun on the ledger (with its error); the worker dies writing it.
    const { world } = testWorld({
      scripts: { M1: [[{ do: 'external', name: 'charge', result: 'timeout' }]] },
      faults: [{ at: 'quarantine.putRecord', error: 'crash' }],
    });
    world.queue.send({ messageId: 'id-M1', body: 'M1' });

    // Act
    const report = await drive(world);

    // Assess
    expect(report.crashes).toBe(1);
    const [record] = [...world.quarantine.records.values()];
    expect(world.quarantine.records.size).toBe(1);
    expect(record).toMatchObject({
      reason: 'outcome-unknown',
      status: QUARANTINE_STATUS.awaitingOperator,
      lastError: {
        class: 'outcome-unknown',
        name: 'OutcomeUnknownError',
        message: 'the call "charge" may or may not have reached the outside system',
      },
    });
    expect(record?.errorSignature).not.toMatch(/^crash:/);
    expect(world.ledger.get('id-M1')?.quarantineId).toBe(record?.id);
  });
});

describe('a retried failure outside a half-open window', () => {
  it('given a transient failure while closed, when the same message fails again as the next probe, then it counts as a first failed probe, not a repeated one', async () => {
    // Prepare: M1 fails transiently twice, then completes.
    const transient = [{ do: 'throw', error: 'transient' }] as const;
    const { world } = testWorld({ scripts: { M1: [transient, transient, []] } });
    world.queue.send({ messageId: 'id-M1', body: 'M1' });
    expect(await deliverNext(world)).toMatchObject({ kind: 'returned', failed: ['id-M1'] });
    expect(world.ledger.get('id-M1')).toMatchObject({ state: 'ready', charged: 0, transientFailures: 1 });
    expect(world.ledger.get('id-M1')?.failedProbes).toBeUndefined();
    await halfOpenWindow(world);

    // Act
    await deliverNext(world);

    // Assess: a first failed probe is the dependency's verdict; a repeated one may be the message.
    expect(world.control.breaker).toMatchObject({ probeFailures: 1, probeRepeatFailures: 0 });
    expect(world.ledger.get('id-M1')).toMatchObject({ state: 'ready', charged: 0, failedProbes: 1 });
  });
});
