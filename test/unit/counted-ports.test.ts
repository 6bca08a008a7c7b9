/**
 * consumer/counting.ts with fake ports: what each port call counts, and what it must not count
 * (a record written twice, a trip or restart that lost its race, a probe not counted, a trial
 * another environment started). Mutation testing found these unpinned by the tests it runs.
 */
import { describe, expect, it } from 'vitest';
import { CONSUMER_METRIC } from '../../contract/metrics';
import { countedPorts } from '../../lambdas/consumer/counting';
import type { ConsumerPorts } from '../../lambdas/ports/consumer-ports';

function counting(answers: Record<string, unknown>) {
  const counted: string[] = [];
  const metrics = {
    count: (metric: string, reason?: string) =>
      counted.push(reason === undefined ? metric : `${metric}:${reason}`),
    flush: () => counted.push('flush'),
  };
  const port = new Proxy({}, { get: (_, name) => async () => answers[String(name)] });
  const ports = countedPorts(
    {
      ledger: port,
      control: port,
      quarantine: port,
      operations: port,
      queue: port,
    } as unknown as ConsumerPorts,
    metrics,
  );
  return { ports, counted };
}

const NOW = new Date('2026-12-02T10:00:00Z');

describe('countedPorts', () => {
  it.each([
    [{ created: true }, 'permanent-error', [`${CONSUMER_METRIC.quarantines}:permanent-error`]],
    [
      { created: true },
      'outcome-unknown',
      [`${CONSUMER_METRIC.quarantines}:outcome-unknown`, CONSUMER_METRIC.outcomeUnknown],
    ],
    [{ created: false }, 'outcome-unknown', []],
  ])('given a record write answered %j for %s, then it counts %j', async (answer, reason, expected) => {
    const { ports, counted } = counting({ putRecord: answer });
    await ports.quarantine.putRecord({ reason } as never);
    expect(counted).toEqual(expected);
  });

  it('given a restart after a charged crash, then an attempt and a charged crash, flushed; a lost restart counts nothing', async () => {
    const won = counting({ restartAfterCrash: { started: true } });
    await won.ports.ledger.restartAfterCrash({ charge: 1 } as never);
    const lost = counting({ restartAfterCrash: { started: false } });
    await lost.ports.ledger.restartAfterCrash({ charge: 1 } as never);
    expect([won.counted, lost.counted]).toEqual([
      [CONSUMER_METRIC.attempts, CONSUMER_METRIC.chargedCrashes, 'flush'],
      [],
    ]);
  });

  it('given a trip this call won and one it lost, then one trip counted, by reason', async () => {
    const won = counting({ tripBreaker: { tripped: true, epoch: 2 } });
    await won.ports.control.tripBreaker({ reason: 'outage', now: NOW, stop: false });
    const lost = counting({ tripBreaker: { tripped: false, epoch: 2 } });
    await lost.ports.control.tripBreaker({ reason: 'outage', now: NOW, stop: false });
    expect([won.counted, lost.counted]).toEqual([[`${CONSUMER_METRIC.breakerTrips}:outage`], []]);
  });

  it.each([
    ['success', true, [CONSUMER_METRIC.probeSuccesses]],
    ['failure', true, [CONSUMER_METRIC.probeFailures]],
    ['own-failure', true, [CONSUMER_METRIC.probeFailures]],
    ['success', false, []],
  ])('given a %s probe counted: %s, then %j', async (probe, wasCounted, expected) => {
    const { ports, counted } = counting({ recordProbe: { counted: wasCounted } });
    await ports.control.recordProbe(probe as never);
    expect(counted).toEqual(expected);
  });

  it('given trials: started by this call, by another (other start time), inactive, and the same cause again, then one counted', async () => {
    const trial = (startedAt: number, active = true) => ({
      active,
      remaining: 3,
      startedAt,
      reason: 'unattributable-crash',
    });
    const start = (cause: string) => ({ now: NOW, messages: 3, cause, expiresAt: 0 });
    const mine = counting({ startIsolation: trial(NOW.getTime()) });
    await mine.ports.control.startIsolation(start('env-1'));
    await mine.ports.control.startIsolation(start('env-1'));
    const theirs = counting({ startIsolation: trial(NOW.getTime() - 1) });
    await theirs.ports.control.startIsolation(start('env-2'));
    const inactive = counting({ startIsolation: { active: false } });
    await inactive.ports.control.startIsolation(start('env-3'));
    expect([mine.counted, theirs.counted, inactive.counted]).toEqual([
      [CONSUMER_METRIC.isolationTrials],
      [],
      [],
    ]);
  });
});
