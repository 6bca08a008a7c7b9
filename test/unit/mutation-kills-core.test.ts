/**
 * Assertions that mutation testing (npm run mutation) found missing in lambdas/core: each test
 * pins a boundary, a name or a text that a surviving mutant changed without any test failing.
 */
import { describe, expect, it } from 'vitest';
import { ENV } from '../../contract/env';
import { MESSAGE_KEY_ATTRIBUTE, REPLAY_OF_ATTRIBUTE } from '../../contract/message-attributes';
import { controlMaxAgeMs, unreadableBreakerEvidence } from '../../lambdas/core/breaker';
import { BREAKER_RESET_AUDIT } from '../../lambdas/core/breaker-reset';
import { classifyError, classifyExternalFailure, classifyWith } from '../../lambdas/core/classify';
import { type Environment, parseConfig } from '../../lambdas/core/config';
import { decideDelivery } from '../../lambdas/core/delivery';
import {
  CallUnansweredError,
  ConfigError,
  OutcomeUnknownError,
  PermanentError,
  PoisonQuarantineError,
  TransientError,
} from '../../lambdas/core/errors';
import { errorEvidence, errorSignature } from '../../lambdas/core/evidence';
import { collisionQuarantineId } from '../../lambdas/core/ids';
import { causeChain, field, httpStatus, MAX_CAUSE_DEPTH } from '../../lambdas/core/inspect';
import { messageKey, replayKey } from '../../lambdas/core/message-key';
import {
  checkReason,
  decideResume,
  groupBySignature,
  type LedgerFacts,
  REPLAY_AUDIT,
  REPLAY_STARTED_AUDIT,
} from '../../lambdas/core/operator';
import { besideAnotherLastReceiveEvidence, receiveCountOf } from '../../lambdas/core/receive-limit';
import { replayAttributes } from '../../lambdas/core/replay-message';
import { suspectOrder } from '../../lambdas/core/suspects';
import { leavesTimeFor, timeMarginMs } from '../../lambdas/core/time-guard';
import type { ErrorEvidence } from '../../lambdas/core/types';
import { decideVerify } from '../../lambdas/core/verify';
import { aLedgerItem, aPolicy } from './fixtures';

describe('field reads only objects and functions', () => {
  it('given a string or a number, then undefined, not the primitive property', () => {
    expect(field('text', 'length')).toBeUndefined();
    expect(field(5, 'toFixed')).toBeUndefined();
  });

  it('given a function with a property, then the property', () => {
    const fn = Object.assign(() => undefined, { code: 'E' });
    expect(field(fn, 'code')).toBe('E');
  });
});

describe('causeChain', () => {
  it('given a two-link chain, then exactly those two errors', () => {
    const inner = new Error('inner');
    const outer = new Error('outer', { cause: inner });
    expect(causeChain(outer)).toEqual([outer, inner]);
  });

  it('given a chain longer than the depth, then the error and MAX_CAUSE_DEPTH causes', () => {
    let error: Error = new Error('0');
    for (let depth = 1; depth <= 10; depth++) error = new Error(String(depth), { cause: error });
    expect(causeChain(error)).toHaveLength(MAX_CAUSE_DEPTH + 1);
  });
});

describe('httpStatus takes integers from 100 to 599 only', () => {
  it.each([
    [100, 100],
    [599, 599],
    [99, undefined],
    [600, undefined],
    [404.5, undefined],
  ])('given status %s, then %s', (status, expected) => {
    expect(httpStatus({ status })).toBe(expected);
  });
});

describe('the time guard', () => {
  it('keeps a tenth of the timeout, at least a second', () => {
    expect(timeMarginMs(5)).toBe(1000);
    expect(timeMarginMs(30)).toBe(3000);
  });

  it('lets a record start with exactly its longest time plus the margin left, not a millisecond less', () => {
    expect(leavesTimeFor(4000, 1000, 30, false)).toBe(true);
    expect(leavesTimeFor(3999, 1000, 30, false)).toBe(false);
    expect(leavesTimeFor(1000, 1000, 30, false)).toBe(false);
  });
});

describe('the last receive', () => {
  it('counts a record without ApproximateReceiveCount as its first receive', () => {
    expect(receiveCountOf({})).toBe(1);
  });

  it('gives a record set aside beside another last receive its evidence, naming the other', () => {
    expect(besideAnotherLastReceiveEvidence('m-1')).toEqual({
      class: 'transient',
      name: 'LastReceiveBesideAnother',
      message: 'not run: on its last receive in a batch where m-1, also on its last receive, ran first',
      stackHead: '',
    });
  });
});

describe('our errors carry their names', () => {
  // Named by a literal: Stryker selects a test by its name, and a mutant of a name must not rename the test.
  it('each error class sets its own name', () => {
    expect(new PoisonQuarantineError('x').name).toBe('PoisonQuarantineError');
    expect(new TransientError('x').name).toBe('TransientError');
    expect(new PermanentError('x').name).toBe('PermanentError');
    expect(new OutcomeUnknownError('x').name).toBe('OutcomeUnknownError');
    expect(new CallUnansweredError('x').name).toBe('CallUnansweredError');
    expect(new ConfigError([]).name).toBe('ConfigError');
  });

  it('a ConfigError lists every problem, saying which were not set', () => {
    const error = new ConfigError([
      { key: 'A', value: undefined, expected: 'a name' },
      { key: 'B', value: 'x', expected: 'a number' },
    ]);
    expect(error.message).toBe(
      'Invalid poison-quarantine configuration: A must be a name (not set); B must be a number (given "x")',
    );
  });
});

describe('the quarantine id of a colliding message', () => {
  it('is both digests cut to 16 hex characters', () => {
    expect(collisionQuarantineId('key', 'message')).toMatch(/^q-[0-9a-f]{16}-c[0-9a-f]{16}$/);
  });
});

describe('classification', () => {
  it("given a user classifier answering 'unknown' or 'outcome-unknown', then its answer", () => {
    const throttled = Object.assign(new Error('slow down'), { name: 'ThrottlingException' });
    expect(classifyWith(() => 'unknown', throttled)).toBe('unknown');
    expect(classifyWith(() => 'outcome-unknown', throttled)).toBe('outcome-unknown');
  });

  it('given an error named SyntaxError that is no SyntaxError, then permanent', () => {
    expect(classifyError({ name: 'SyntaxError', message: 'bad' })).toBe('permanent');
  });

  it('given status 500, then transient', () => {
    expect(classifyError({ status: 500 })).toBe('transient');
  });

  it('given a keyless call whose error has a status below 400, then outcome unknown', () => {
    expect(classifyExternalFailure({ status: 302 }, 'permanent', false)).toBe('outcome-unknown');
  });
});

describe('errorSignature', () => {
  const evidence = (message: string, stackHead: string): ErrorEvidence => ({
    class: 'permanent',
    name: 'Error',
    message,
    stackHead,
  });

  it('drops line and column from a frame in parentheses, and from one at the end of the line', () => {
    expect(errorSignature(evidence('m', 'at f (/app/a.js:10:5)'))).toBe(
      'permanent | Error | at f (/app/a.js) | m',
    );
    expect(errorSignature(evidence('m', 'at f (/app/a.js:10)'))).toBe(
      'permanent | Error | at f (/app/a.js) | m',
    );
    expect(errorSignature(evidence('m', 'at /app/a.js:10:5'))).toBe('permanent | Error | at /app/a.js | m');
  });

  it('masks quoted text, double-quoted text, uuids and numbers', () => {
    expect(
      errorSignature(
        evidence(
          `no 'order' for "x y" id 123e4567-e89b-12d3-a456-426614174000 at 42`,
          'at f (/app/a.js:1:1)',
        ),
      ),
    ).toBe(`permanent | Error | at f (/app/a.js) | no '#' for "#" id # at #`);
  });

  it('keeps the first 200 characters of the message', () => {
    expect(errorSignature(evidence('x'.repeat(300), '')).endsWith(` | ${'x'.repeat(200)}`)).toBe(true);
  });
});

describe('a thrown non-Error that JSON cannot show', () => {
  it('is described by its type, never by its own toString', () => {
    const circular: Record<string, unknown> = { toString: () => 'custom' };
    circular.self = circular;
    expect(errorEvidence(circular, 'unknown').message).toBe('[object Object]');
  });
});

describe('parseConfig shapes', () => {
  const required: Environment = {
    [ENV.attemptsTable]: 'pq-attempts',
    [ENV.quarantineTable]: 'pq-quarantine',
    [ENV.quarantineBucket]: 'pq-quarantine-123456789012',
    [ENV.controlTable]: 'pq-control',
    [ENV.pauseStateMachineArn]: 'arn:aws:states:eu-west-1:123456789012:stateMachine:pq-pause',
    [ENV.verificationStateMachineArn]: 'arn:aws:states:eu-west-1:123456789012:stateMachine:pq-verification',
    [ENV.sourceQueueUrl]: 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders',
    [ENV.sourceQueueArn]: 'arn:aws:sqs:eu-west-1:123456789012:orders',
  };
  const problemKeys = (env: Environment): string[] => {
    try {
      parseConfig(env);
      return [];
    } catch (error) {
      if (error instanceof ConfigError) return error.problems.map((problem) => problem.key);
      throw error;
    }
  };

  it('accepts an http queue URL (a local endpoint)', () => {
    expect(
      problemKeys({ ...required, [ENV.sourceQueueUrl]: 'http://localhost:4566/000000000000/orders' }),
    ).toEqual([]);
  });

  it('leaves variables of other programs alone', () => {
    expect(problemKeys({ ...required, AWS_REGION: 'eu-west-1' })).toEqual([]);
  });

  it('refuses an ARN with text before it or a space in it', () => {
    for (const arn of [
      'xarn:aws:sqs:eu-west-1:123456789012:orders',
      'arn:aws:sqs:eu-west-1:123456789012:orders x',
    ])
      expect(problemKeys({ ...required, [ENV.sourceQueueArn]: arn }), arn).toEqual([ENV.sourceQueueArn]);
  });

  it('refuses a queue URL with text before it or a space in it', () => {
    for (const url of [
      'x https://sqs.eu-west-1.amazonaws.com/1/orders',
      'https://sqs.eu-west-1.amazonaws.com/1/orders x',
    ])
      expect(problemKeys({ ...required, [ENV.sourceQueueUrl]: url }), url).toEqual([ENV.sourceQueueUrl]);
  });

  it.each([
    ['00.5', []],
    ['.55', []],
    ['1e-1', [ENV.quarantineShareThreshold]],
    ['0.1e0', [ENV.quarantineShareThreshold]],
  ])('given the share threshold %j, then problems %j', (value, problems) => {
    expect(problemKeys({ ...required, [ENV.quarantineShareThreshold]: value })).toEqual(problems);
  });
});

describe('decideResume says why, and reads the claim, not the last audit entry', () => {
  const CLAIMED_AT = '2030-01-01T00:00:00.000Z';
  const RESUMABLE = new Date('2030-01-01T00:10:00.000Z');
  const stuck = {
    id: 'q-1-g0-a3',
    status: 'replaying',
    cause: 'schema v3 not deployed',
    generation: 0,
    audit: [{ what: REPLAY_STARTED_AUDIT, when: CLAIMED_AT }],
  };
  const reset: LedgerFacts = {
    state: 'ready',
    generation: 1,
    charged: 0,
    transientFailures: 0,
    unknownFailures: 0,
  };

  it('names the audit entries it reads as the trail stores them', () => {
    expect(REPLAY_STARTED_AUDIT).toBe('replay-started');
    expect(REPLAY_AUDIT).toBe('replay');
  });

  it('allows resume exactly when the claim is old enough', () => {
    expect(decideResume(stuck, reset, RESUMABLE).kind).toBe('release');
  });

  it('given an audit entry written after the claim, then the claim still decides', () => {
    const later = {
      ...stuck,
      audit: [...stuck.audit, { what: 'set-cause "x"', when: '2030-01-01T00:09:00.000Z' }],
    };
    expect(decideResume(later, reset, RESUMABLE).kind).toBe('release');
  });

  it.each<[string, LedgerFacts | undefined, string]>([
    ['no ledger item', undefined, 'there is no attempts ledger item for its key: no replay can run on it'],
    [
      'the ledger holds this quarantine',
      { ...reset, state: 'quarantined', generation: 0, quarantineId: stuck.id },
      'the ledger still holds this quarantine (generation 0): the replay never reset it, or undid its reset, so a copy it may have sent is acknowledged as a duplicate',
    ],
    [
      'never reset, not quarantined',
      { ...reset, generation: 0, quarantineId: stuck.id },
      'the ledger was never reset for it (state ready, generation 0): nothing was sent',
    ],
    [
      'reset, no attempt since',
      reset,
      'the ledger was reset (generation 1) but shows no attempt since: its message may wait in the queue or was never sent; the ledger is put back to quarantined, so a queued copy is acknowledged as a duplicate',
    ],
  ])('given %s, then its evidence', (_name, ledger, evidence) => {
    expect(decideResume(stuck, ledger, RESUMABLE)).toMatchObject({ kind: 'release', evidence });
  });

  it('counts transient and unknown failures since the reset together', () => {
    expect(decideResume(stuck, { ...reset, transientFailures: 1, unknownFailures: 1 }, RESUMABLE).kind).toBe(
      'finish',
    );
  });
});

describe('checkReason', () => {
  it('accepts a reason, and refuses none with what to give', () => {
    expect(checkReason('the schema was deployed')).toBeUndefined();
    expect(checkReason(' ')).toEqual({ kind: 'refuse', reason: '--reason "why" is required' });
  });
});

describe('a failure group lists its reasons sorted', () => {
  it('given reasons in any order, then sorted', () => {
    const record = (id: string, reason: string) => ({
      id,
      reason,
      cause: 'unidentified',
      status: 'open',
      errorSignature: 's',
      createdAt: '2030-01-01T00:00:00Z',
    });
    const [group] = groupBySignature([record('q-1', 'permanent-error'), record('q-2', 'crash-limit')]);
    expect(group?.reasons).toEqual(['crash-limit', 'permanent-error']);
  });
});

describe('the breaker as the control cache reads it', () => {
  const open = {
    state: 'open',
    reason: 'r',
    epoch: 1,
    openedAt: 10_000,
    cooldownSeconds: 60,
    stop: false,
  } as const;

  it('keeps a closed breaker for the whole cache time', () => {
    expect(controlMaxAgeMs({ state: 'closed', epoch: 1, cooldownSeconds: 60, stop: false }, 0, 5000)).toBe(
      5000,
    );
  });

  it('treats an open breaker as cooling until its cool-down has passed, not at its end', () => {
    expect(controlMaxAgeMs(open, 69_999, 5000)).toBe(1000);
    expect(controlMaxAgeMs(open, 70_000, 5000)).toBe(0);
  });

  it('gives a record held by an unreadable breaker evidence naming the problem', () => {
    expect(unreadableBreakerEvidence({ state: 'unreadable', problem: 'epoch missing' })).toEqual({
      class: 'transient',
      name: 'BreakerUnreadable',
      message: 'not run: the breaker item could not be read (epoch missing)',
      stackHead: '',
    });
  });

  it('names the reset in the audit as the trail stores it', () => {
    expect(BREAKER_RESET_AUDIT).toBe('reset-breaker');
  });
});

describe('a finished key delivered again (rule 13)', () => {
  const policy = aPolicy({ attemptLimit: 3, attemptTimeoutSeconds: 30 });
  const finished = aLedgerItem({ state: 'completed', messageId: 'm-1', bodyDigest: 'digest-1' });

  it('given the same messageId with other bytes, then a duplicate (SQS redelivered it)', () => {
    expect(
      decideDelivery(finished, undefined, policy, 0, { messageId: 'm-1', bodyDigest: 'digest-2' }),
    ).toEqual({
      kind: 'duplicate',
      state: 'completed',
    });
  });

  it('given another messageId on an item written before digests existed, then a duplicate', () => {
    const old = aLedgerItem({ state: 'completed', messageId: 'm-1', bodyDigest: undefined });
    expect(decideDelivery(old, undefined, policy, 0, { messageId: 'm-2', bodyDigest: 'digest-2' })).toEqual({
      kind: 'duplicate',
      state: 'completed',
    });
  });
});

describe('message keys', () => {
  it('refuses a replay whose pq-replay-of is empty', () => {
    expect(replayKey({ messageKey: 'k', replayOf: '' })).toEqual({
      ok: false,
      reason: 'a replay needs both pq-message-key and pq-replay-of',
    });
  });

  it('accepts a key of exactly 2048 bytes', () => {
    const key = 'k'.repeat(2048);
    expect(messageKey({ messageId: 'm-1', body: JSON.stringify({ id: key }) }, 'id')).toEqual({
      ok: true,
      key,
    });
  });
});

describe("a replay's attributes", () => {
  it('marks the replay with two String attributes', () => {
    const attributes = replayAttributes({}, { replayOf: 'q-1', messageKey: 'k' });
    expect(attributes[REPLAY_OF_ATTRIBUTE]).toEqual({ dataType: 'String', stringValue: 'q-1' });
    expect(attributes[MESSAGE_KEY_ATTRIBUTE]).toEqual({ dataType: 'String', stringValue: 'k' });
  });
});

describe('verify --not-done on a record with an audit but no replay', () => {
  it('replays it', () => {
    const record = { status: 'awaiting-operator', cause: 'unidentified', audit: [{ what: 'set-cause "x"' }] };
    expect(decideVerify(record, { decision: 'not-done', wait: 'open', replayFrozen: false })).toEqual({
      kind: 'answer',
      replay: true,
      via: 'execution',
    });
  });
});

describe('suspect order', () => {
  it('puts a quarantined key with many attempts before a ready key with fewer', () => {
    const glances = new Map([
      ['a', { state: 'quarantined', attempts: 5, charged: 3, crashed: false }],
      ['b', { state: 'ready', attempts: 1, charged: 0, crashed: false }],
    ] as const);
    expect(suspectOrder(['b', 'a'], (key) => key, glances)).toEqual(['a', 'b']);
  });
});
