/**
 * A message's life as a random sequence of deliveries, each doing something different (succeed,
 * throw, crash alone or with others, crash after an external call), driven through the core's
 * decisions by the in-memory edge. The properties are the behaviour contract's promises.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NO_TRIAL } from '../../lambdas/core/isolation';
import type { Policy } from '../../lambdas/core/types';
import { aPolicy } from './fixtures';
import { type Behaviour, LedgerSimulator, type SimMessage } from './ledger-simulator';

const message: SimMessage = { messageId: 'M', body: '{"order":{"id":"ord-9","amount":12.5}}' };

const behaviour: fc.Arbitrary<Behaviour> = fc.oneof(
  { arbitrary: fc.constant<Behaviour>({ kind: 'succeed' }), weight: 1 },
  {
    arbitrary: fc
      .constantFrom('transient', 'permanent', 'unknown' as const)
      .map((error): Behaviour => ({ kind: 'throw', error })),
    weight: 3,
  },
  {
    arbitrary: fc.integer({ min: 1, max: 5 }).map((inFlight): Behaviour => ({ kind: 'crash', inFlight })),
    weight: 4,
  },
  {
    arbitrary: fc.boolean().map((idempotent): Behaviour => ({ kind: 'crash-after-external', idempotent })),
    weight: 1,
  },
  { arbitrary: fc.constant<Behaviour>({ kind: 'external-timeout' }), weight: 1 },
);

const policy: fc.Arbitrary<Policy> = fc
  .record({ attemptLimit: fc.integer({ min: 1, max: 5 }), transientRetries: fc.integer({ min: 0, max: 4 }) })
  .map((overrides) => aPolicy(overrides));

const script = fc.array(behaviour, { maxLength: 40 });

/** A pending call that nobody may repeat: crashed during it, or timed out after sending. */
const leavesOutcomeUnknown = (b: Behaviour) =>
  b.kind === 'external-timeout' || (b.kind === 'crash-after-external' && !b.idempotent);

describe('a message under any sequence of events', () => {
  it('is never lost, never over-charged, never blamed for a shared crash, never repeats an uncertain call', () => {
    fc.assert(
      fc.property(policy, script, (p, events) => {
        const sim = new LedgerSimulator(p);
        let frozen: { attempts: number; calls: number } | undefined;

        for (const event of events) {
          // Prepare
          const before = sim.ledger.get(message.messageId);

          // Act
          const report = sim.deliver(message, event);

          // Assess
          const after = sim.ledger.get(message.messageId);
          if (after === undefined) throw new Error('the start write was lost');
          if (before?.state === 'completed' || before?.state === 'quarantined') {
            expect(report).toMatchObject({ path: 'duplicate', workStarted: false, acknowledged: true });
          }
          if (report.acknowledged) {
            expect(['completed', 'quarantined']).toContain(after.state);
          } else {
            expect(['in-flight', 'ready']).toContain(after.state);
          }
          if (after.state === 'quarantined') {
            expect(sim.quarantine.get(after.quarantineId ?? '')?.body).toBe(message.body);
          }
          expect(after.charged).toBeLessThanOrEqual(p.attemptLimit);
          expect(after.charged).toBeLessThanOrEqual(after.attempts);
          if (report.crash === 'unattributable') {
            expect(report.charge).toBe(0);
          }
          if (frozen !== undefined) {
            expect(sim.attemptsStarted).toBe(frozen.attempts);
            expect(sim.externalCalls.get(message.messageId)).toBe(frozen.calls);
          }
          if (report.workStarted && leavesOutcomeUnknown(event)) {
            frozen = { attempts: sim.attemptsStarted, calls: sim.externalCalls.get(message.messageId) ?? 0 };
          }
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('given an unattributable crash is discovered, then nothing is charged and an isolation trial starts', () => {
    fc.assert(
      fc.property(policy, script, fc.integer({ min: 2, max: 5 }), (p, prefix, inFlight) => {
        // Prepare: any history, then the message dies with others while no trial runs.
        const sim = new LedgerSimulator(p);
        for (const event of prefix) sim.deliver(message, event);
        sim.trial = NO_TRIAL;
        const crashed = sim.deliver(message, { kind: 'crash', inFlight });
        // A delivery that itself discovered a shared crash runs under isolation: its crash is alone.
        fc.pre(crashed.workStarted && crashed.crash !== 'unattributable');
        const charged = sim.ledger.get(message.messageId)?.charged;

        // Act: it comes back.
        const back = sim.deliver(message, { kind: 'succeed' });

        // Assess
        expect(back).toMatchObject({
          crash: 'unattributable',
          charge: 0,
          chargedBefore: charged,
          chargedAfter: charged,
        });
        expect(sim.trial.active).toBe(true);
      }),
    );
  });

  it('given a healthy delivery after any history, then the message is finished in that one delivery', () => {
    fc.assert(
      fc.property(policy, script, (p, prefix) => {
        const sim = new LedgerSimulator(p);
        for (const event of prefix) sim.deliver(message, event);

        const report = sim.deliver(message, { kind: 'succeed' });

        expect(report.acknowledged).toBe(true);
      }),
    );
  });

  it('given a poison message crashing on every delivery, alone or not, then it is quarantined within limit + 2', () => {
    fc.assert(
      fc.property(
        policy,
        script,
        fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 7, maxLength: 7 }),
        (p, prefix, ks) => {
          const sim = new LedgerSimulator(p);
          for (const event of prefix) sim.deliver(message, event);

          const acknowledged = ks
            .slice(0, p.attemptLimit + 2)
            .map((inFlight) => sim.deliver(message, { kind: 'crash', inFlight }).acknowledged);

          expect(acknowledged).toContain(true);
        },
      ),
    );
  });
  it('given a message that fails on every delivery, in any mix of ways, then it is quarantined, never looped', () => {
    // Bound: transient retries, one unknown retry, the charged crashes, one unattributable crash
    // (the isolation trial makes the next one attributable), and the delivery that quarantines.
    const failure = behaviour.filter((b) => b.kind !== 'succeed');
    fc.assert(
      fc.property(policy, fc.infiniteStream(failure), (p, events) => {
        const sim = new LedgerSimulator(p);
        const bound = p.transientRetries + p.attemptLimit + 3;

        const acknowledged = [...events.take(bound)].map((event) => sim.deliver(message, event).acknowledged);

        expect(acknowledged).toContain(true);
        expect(sim.ledger.get(message.messageId)?.state).toBe('quarantined');
      }),
    );
  });
});

describe('a message failing the same way every time (rule 9 arithmetic, any policy)', () => {
  type Expectation = { deliveries: number; attempts: number; reason: string };
  const cases: [string, Behaviour, (p: Policy) => Expectation][] = [
    [
      'transient',
      { kind: 'throw', error: 'transient' },
      (p) => ({
        deliveries: p.transientRetries + 1,
        attempts: p.transientRetries + 1,
        reason: 'transient-retries-exhausted',
      }),
    ],
    [
      'unknown',
      { kind: 'throw', error: 'unknown' },
      (p) =>
        p.attemptLimit === 1
          ? { deliveries: 1, attempts: 1, reason: 'crash-limit' }
          : { deliveries: 2, attempts: 2, reason: 'unknown-error-repeated' },
    ],
    [
      'permanent',
      { kind: 'throw', error: 'permanent' },
      () => ({ deliveries: 1, attempts: 1, reason: 'permanent-error' }),
    ],
    [
      'crash alone',
      { kind: 'crash', inFlight: 1 },
      (p) => ({ deliveries: p.attemptLimit + 1, attempts: p.attemptLimit, reason: 'crash-limit' }),
    ],
  ];

  it.each(cases)(
    'given %s every time, then it is quarantined after exactly the stated deliveries',
    (_name, event, expected) => {
      fc.assert(
        fc.property(policy, (p) => {
          // Prepare
          const sim = new LedgerSimulator(p);
          let deliveries = 0;

          // Act
          while (deliveries < 50 && !sim.deliver(message, event).acknowledged) deliveries += 1;

          // Assess
          const [record] = [...sim.quarantine.values()];
          expect({
            deliveries: deliveries + 1,
            attempts: sim.attemptsStarted,
            reason: record?.reason,
          }).toStrictEqual(expected(p));
        }),
      );
    },
  );
});

describe('the rehearsal (behaviour contract, seed 000)', () => {
  const rehearse = (m3: Behaviour) => {
    const sim = new LedgerSimulator(aPolicy({ attemptLimit: 3 }));
    const queue: SimMessage[] = ['M1', 'M2', 'M3', 'M4', 'M5'].map((id) => ({
      messageId: id,
      body: `{"id":"${id}"}`,
    }));
    const m3Paths: string[] = [];
    for (let guard = 0; queue.length > 0 && guard < 50; guard += 1) {
      const next = queue.shift() as SimMessage;
      const report = sim.deliver(next, next.messageId === 'M3' ? m3 : { kind: 'succeed' });
      if (next.messageId === 'M3') m3Paths.push(report.path);
      if (!report.acknowledged) queue.push(next);
    }
    const states = [...sim.ledger.values()].map((item) => [item.key, item.state]);
    return { sim, queueLeft: queue.length, m3Paths, states: Object.fromEntries(states) };
  };

  it('given M3 crashes the parser alone every time, then 7 attempts, 4 completed, 1 quarantined, 0 left', () => {
    // Act
    const { sim, queueLeft, m3Paths, states } = rehearse({ kind: 'crash', inFlight: 1 });

    // Assess
    expect(sim.attemptsStarted).toBe(7);
    expect(queueLeft).toBe(0);
    expect(states).toStrictEqual({
      M1: 'completed',
      M2: 'completed',
      M3: 'quarantined',
      M4: 'completed',
      M5: 'completed',
    });
    expect(m3Paths).toStrictEqual(['started', 'started', 'started', 'quarantined']);
    expect([...sim.quarantine.values()]).toStrictEqual([
      {
        id: 'q-67629a19d082ed3a-g0-a3',
        reason: 'crash-limit',
        body: '{"id":"M3"}',
        attemptsStarted: 3,
        attemptsCharged: 3,
      },
    ]);
  });

  it('given M3 crashes after sending its external request, then 5 attempts and one outcome-unknown quarantine', () => {
    // Act
    const { sim, queueLeft, m3Paths, states } = rehearse({ kind: 'crash-after-external', idempotent: false });

    // Assess
    expect(sim.attemptsStarted).toBe(5);
    expect(queueLeft).toBe(0);
    expect(states).toStrictEqual({
      M1: 'completed',
      M2: 'completed',
      M3: 'quarantined',
      M4: 'completed',
      M5: 'completed',
    });
    expect(m3Paths).toStrictEqual(['started', 'quarantined']);
    expect(sim.externalCalls.get('M3')).toBe(1);
    expect([...sim.quarantine.values()]).toStrictEqual([
      {
        id: 'q-67629a19d082ed3a-g0-a1',
        reason: 'outcome-unknown',
        body: '{"id":"M3"}',
        attemptsStarted: 1,
        attemptsCharged: 0,
      },
    ]);
  });
});
