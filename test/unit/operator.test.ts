import { describe, expect, it } from 'vitest';
import type { VerifyDecision } from '../../contract/quarantine';
import {
  breakerOutput,
  checkCause,
  checkReason,
  decideBreakerAction,
  decideDiscard,
  decideReplay,
  decideResume,
  type GroupedRecord,
  groupBySignature,
  groupId,
  type LedgerFacts,
  matchesGroup,
  REPLAY_AUDIT,
  REPLAY_STARTED_AUDIT,
} from '../../lambdas/core/operator';
import { decideVerify, type VerifyWait, verifyOutput, verifyWaitOf } from '../../lambdas/core/verify';

const open = { id: 'q-1', status: 'open', cause: 'schema v3 not deployed' };
const awaiting: { status: string; cause: string; audit: readonly { what: string }[] } = {
  status: 'awaiting-operator',
  cause: 'unidentified',
  audit: [],
};
const replayedOnce = { ...awaiting, audit: [{ what: 'set-cause "x"' }, { what: REPLAY_AUDIT }] };

describe('decideReplay (rules 4, 11c, 12)', () => {
  it.each<[string, { id: string; status: string; cause: string }, boolean, string | undefined]>([
    ['an open record with a cause', open, false, undefined],
    [
      'an open record without a cause',
      { ...open, cause: 'unidentified' },
      false,
      'no cause is recorded yet: run pq cause q-1 "what went wrong" first',
    ],
    ['an open record with a blank cause', { ...open, cause: '  ' }, false, 'no cause is recorded yet'],
    ['any record while replay is frozen', open, true, 'replay is frozen'],
    ['a record awaiting verification', { ...open, status: 'awaiting-operator' }, false, 'use verify'],
    ['a record being replayed', { ...open, status: 'replaying' }, false, 'its status is replaying'],
    ['a replayed record', { ...open, status: 'replayed' }, false, 'its status is replayed'],
    ['a resolved record', { ...open, status: 'resolved' }, false, 'its status is resolved'],
  ])('%s', (_name, record, replayFrozen, refusal) => {
    const decision = decideReplay(record, { replayFrozen });

    if (refusal === undefined) expect(decision).toStrictEqual({ kind: 'replay' });
    else expect(decision).toMatchObject({ kind: 'refuse', reason: expect.stringContaining(refusal) });
  });

  it('names the freeze first: no cause would not unfreeze anything', () => {
    expect(
      decideReplay({ id: 'q-1', status: 'open', cause: 'unidentified' }, { replayFrozen: true }),
    ).toMatchObject({
      reason: expect.stringContaining('frozen'),
    });
  });
});

describe('decideVerify (rule 8)', () => {
  type Case = [string, typeof awaiting, VerifyDecision, VerifyWait, boolean, ReturnType<typeof decideVerify>];
  const refuse = (text: string) => ({ kind: 'refuse', reason: expect.stringContaining(text) }) as never;
  const answer = (replay: boolean, via: 'execution' | 'record' = 'execution') =>
    ({ kind: 'answer', replay, via }) as const;

  it.each<Case>([
    ['done answers without a replay', awaiting, 'done', 'open', false, answer(false)],
    ['discard answers without a replay', awaiting, 'discard', 'open', false, answer(false)],
    ['not-done replays, then answers', awaiting, 'not-done', 'open', false, answer(true)],
    ['done is allowed while replay is frozen', awaiting, 'done', 'open', true, answer(false)],
    ['not-done is refused while replay is frozen', awaiting, 'not-done', 'open', true, refuse('frozen')],
    [
      'an execution that has not opened its wait yet: try again',
      awaiting,
      'done',
      'opening',
      false,
      refuse('try again in a minute'),
    ],
    [
      'an execution that is gone: the answer is applied to the record itself',
      awaiting,
      'done',
      'gone',
      false,
      answer(false, 'record'),
    ],
    [
      'not-done with the execution gone: replayed, applied to the record',
      awaiting,
      'not-done',
      'gone',
      false,
      answer(true, 'record'),
    ],
    ['not-done with the execution gone, replay frozen', awaiting, 'not-done', 'gone', true, refuse('frozen')],
    [
      'an open record is not verified',
      { ...awaiting, status: 'open' },
      'done',
      'open',
      false,
      refuse('status is open'),
    ],
    [
      'a resolved record is not verified',
      { ...awaiting, status: 'resolved' },
      'done',
      'gone',
      false,
      refuse('resolved'),
    ],
    [
      'a not-done whose answer was lost answers again without a second replay',
      replayedOnce,
      'not-done',
      'open',
      true,
      answer(false),
    ],
    [
      'a not-done whose answer was lost, its execution gone since: applied without a second replay',
      replayedOnce,
      'not-done',
      'gone',
      false,
      answer(false, 'record'),
    ],
    [
      'after a not-done replay, done is refused',
      replayedOnce,
      'done',
      'open',
      false,
      refuse('already replayed'),
    ],
    [
      'after a not-done replay, discard is refused',
      replayedOnce,
      'discard',
      'gone',
      false,
      refuse('already replayed'),
    ],
  ])('%s', (_name, record, decision, wait, replayFrozen, expected) => {
    expect(decideVerify(record, { decision, wait, replayFrozen })).toStrictEqual(expected);
  });

  it.each<[string | undefined, boolean, VerifyWait]>([
    ['RUNNING', true, 'open'],
    ['RUNNING', false, 'opening'],
    [undefined, false, 'gone'],
    ['FAILED', true, 'gone'],
    ['ABORTED', true, 'gone'],
    ['TIMED_OUT', false, 'gone'],
    ['SUCCEEDED', false, 'gone'],
  ])('an execution %s with a stored token %s: the wait is %s', (status, hasTaskToken, expected) => {
    expect(verifyWaitOf(status, hasTaskToken)).toBe(expected);
  });

  it('answers the state machine with decision, who, why and an ISO time', () => {
    const at = new Date('2030-01-01T03:00:00.000Z');

    expect(
      verifyOutput('not-done', { who: 'arn:aws:iam::1:user/ann', why: 'no charge in Stripe', at }),
    ).toStrictEqual({
      decision: 'not-done',
      who: 'arn:aws:iam::1:user/ann',
      why: 'no charge in Stripe',
      at: '2030-01-01T03:00:00.000Z',
    });
  });
});

describe('decideDiscard (rule 4)', () => {
  it('discards an open record, with or without a cause', () => {
    expect(decideDiscard(open)).toStrictEqual({ kind: 'discard' });
    expect(decideDiscard({ ...open, cause: 'unidentified' })).toStrictEqual({ kind: 'discard' });
  });

  it.each<[string, string]>([
    ['awaiting-operator', 'use verify ID --discard'],
    ['replaying', 'its status is replaying: only open records can be discarded'],
    ['replayed', 'its status is replayed: only open records can be discarded'],
    ['resolved', 'its status is resolved: only open records can be discarded'],
  ])('refuses a record whose status is %s', (status, refusal) => {
    expect(decideDiscard({ ...open, status })).toStrictEqual({
      kind: 'refuse',
      reason: expect.stringContaining(refusal),
    });
  });
});

describe('decideResume (a replay that broke half-way)', () => {
  const CLAIMED_AT = '2030-01-01T00:00:00.000Z';
  const LATER = new Date('2030-01-01T01:00:00.000Z');
  const stuck = {
    id: 'q-1-g0-a3',
    status: 'replaying',
    cause: 'schema v3 not deployed',
    generation: 0,
    audit: [
      { what: 'set-cause "x"', when: '2029-12-31T00:00:00.000Z' },
      { what: REPLAY_STARTED_AUDIT, when: CLAIMED_AT },
    ],
  };
  // What resetForReplay leaves: generation + 1, ready, the failure counters 0.
  const reset: LedgerFacts = {
    state: 'ready',
    generation: 1,
    charged: 0,
    transientFailures: 0,
    unknownFailures: 0,
  };
  const quarantinedHere: LedgerFacts = {
    ...reset,
    state: 'quarantined',
    generation: 0,
    quarantineId: stuck.id,
  };
  const pickedUp = { kind: 'finish', evidence: expect.stringContaining('picked the replay up') } as const;
  const release = (requarantine: boolean) =>
    ({ kind: 'release', requarantine, evidence: expect.any(String) }) as const;

  it.each<[string, LedgerFacts | undefined, ReturnType<typeof decideResume>]>([
    ['died before the reset: the ledger still holds this quarantine', quarantinedHere, release(false)],
    ['the reset was undone', { ...quarantinedHere, generation: 1 }, release(false)],
    ['no ledger item: no replay can run on it', undefined, release(false)],
    ['the ledger was never reset for it', { ...reset, generation: 0 }, release(false)],
    ['reset, no attempt since: the message may wait in the queue or was never sent', reset, release(true)],
    [
      'an attempt failed after the reset and waits for its retry',
      { ...reset, transientFailures: 1 },
      pickedUp,
    ],
    ['an attempt was charged after the reset', { ...reset, charged: 1 }, pickedUp],
    ['the replay is in flight', { ...reset, state: 'in-flight' }, pickedUp],
    ['the replay completed', { ...reset, state: 'completed' }, pickedUp],
    [
      'the replay was quarantined again',
      { ...reset, state: 'quarantined', quarantineId: 'q-1-g1-a1' },
      pickedUp,
    ],
    ['a later quarantine of it was replayed too', { ...reset, generation: 2 }, pickedUp],
  ])('%s', (_name, ledger, expected) => {
    expect(decideResume(stuck, ledger, LATER)).toStrictEqual(expected);
  });

  it('says what the ledger showed', () => {
    expect(decideResume(stuck, { ...reset, state: 'completed' }, LATER)).toStrictEqual({
      kind: 'finish',
      evidence: 'the consumer picked the replay up (ledger: state completed, generation 1)',
    });
  });

  it('refuses a claim young enough to belong to a replay still running', () => {
    const now = new Date(Date.parse(CLAIMED_AT) + 2 * 60_000);

    expect(decideResume(stuck, reset, now)).toStrictEqual({
      kind: 'refuse',
      reason:
        'its replay started at 2030-01-01T00:00:00.000Z and may still be running: resume is allowed from 2030-01-01T00:10:00.000Z',
    });
  });

  it.each(['open', 'replayed', 'awaiting-operator'])('refuses a record whose status is %s', (status) => {
    expect(decideResume({ ...stuck, status }, reset, LATER)).toStrictEqual({
      kind: 'refuse',
      reason: `its status is ${status}: only a replay that broke half-way (status replaying) can be resumed`,
    });
  });
});

describe('decideBreakerAction (rules 7, 11)', () => {
  const breaker = (state: string) => ({ state });

  it.each<[string, { state: string } | undefined, 'resume' | 'hold', string | undefined]>([
    ['resume an open breaker', breaker('open'), 'resume', undefined],
    ['hold a half-open breaker', breaker('half-open'), 'hold', undefined],
    ['resume a closed breaker', breaker('closed'), 'resume', 'consumption is not paused (breaker closed)'],
    ['hold a breaker that never opened', undefined, 'hold', 'breaker never opened'],
  ])('%s', (_name, state, action, refusal) => {
    const decision = decideBreakerAction(state, action);

    if (refusal === undefined) expect(decision).toStrictEqual({ kind: 'apply' });
    else expect(decision).toMatchObject({ kind: 'refuse', reason: expect.stringContaining(refusal) });
  });

  it('answers the pause execution with action, who and why', () => {
    expect(breakerOutput('hold', { who: 'arn:x', why: 'db still down' })).toStrictEqual({
      action: 'hold',
      who: 'arn:x',
      why: 'db still down',
    });
  });
});

describe('causes and reasons (rules 4, 12)', () => {
  it.each([
    ['', 'empty'],
    ['   ', 'empty'],
    ['unidentified', 'not a cause'],
    ['Unidentified ', 'not a cause'],
  ])('refuses the cause %j', (text, refusal) => {
    expect(checkCause(text)).toMatchObject({ kind: 'refuse', reason: expect.stringContaining(refusal) });
  });

  it('accepts a cause that says something', () => {
    expect(checkCause('customer 42 has a malformed address')).toBeUndefined();
  });

  it.each([undefined, '', '  '])('requires a reason (given %j)', (reason) => {
    expect(checkReason(reason)).toMatchObject({ kind: 'refuse' });
  });
});

describe('failure groups', () => {
  const record = (
    id: string,
    errorSignature: string,
    createdAt: string,
    more: Partial<GroupedRecord> = {},
  ) => ({
    id,
    errorSignature,
    createdAt,
    reason: 'permanent-error',
    cause: 'unidentified',
    status: 'open',
    ...more,
  });
  const parse = 'permanent | SyntaxError | at JSON.parse (<anonymous>) | Unexpected token';
  const crash = 'crash:parsed';

  it('groups by signature, biggest first, with counts, causes, reasons and times', () => {
    const groups = groupBySignature([
      record('q-1', crash, '2030-01-01T00:00:00Z', { reason: 'crash-limit' }),
      record('q-2', parse, '2030-01-01T00:01:00Z'),
      record('q-3', parse, '2030-01-01T00:03:00Z', { cause: 'bad producer' }),
      record('q-4', parse, '2030-01-01T00:02:00Z', { reason: 'unknown-error-repeated' }),
    ]);

    expect(groups).toStrictEqual([
      {
        group: groupId(parse),
        errorSignature: parse,
        count: 3,
        withCause: 1,
        reasons: ['permanent-error', 'unknown-error-repeated'],
        firstAt: '2030-01-01T00:01:00Z',
        lastAt: '2030-01-01T00:03:00Z',
        ids: ['q-2', 'q-3', 'q-4'],
      },
      {
        group: groupId(crash),
        errorSignature: crash,
        count: 1,
        withCause: 0,
        reasons: ['crash-limit'],
        firstAt: '2030-01-01T00:00:00Z',
        lastAt: '2030-01-01T00:00:00Z',
        ids: ['q-1'],
      },
    ]);
  });

  it('orders groups of equal size by their latest record', () => {
    const groups = groupBySignature([
      record('q-1', 'a', '2030-01-01T00:00:00Z'),
      record('q-2', 'b', '2030-01-02T00:00:00Z'),
    ]);

    expect(groups.map((group) => group.errorSignature)).toStrictEqual(['b', 'a']);
  });

  it('gives each signature a short stable id that selects it, as the full signature does', () => {
    expect(groupId(parse)).toMatch(/^g-[0-9a-f]{10}$/);
    expect(groupId(parse)).toBe(groupId(parse));
    expect(groupId(parse)).not.toBe(groupId(crash));
    expect(matchesGroup(parse, groupId(parse))).toBe(true);
    expect(matchesGroup(parse, parse)).toBe(true);
    expect(matchesGroup(parse, groupId(crash))).toBe(false);
  });
});
