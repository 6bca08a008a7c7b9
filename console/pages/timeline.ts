/**
 * A record's history as one timeline, from what the quarantine record and the attempts ledger
 * keep: the first and the last attempt, how they ended (a caught error, or a crash: no error
 * caught), the last known stage, the declared outside call, the quarantine, the operator's wait,
 * every audited operator action, and a replay's reset of the ledger. The ledger keeps counters,
 * not one entry per attempt, so the attempts between the first and the last are one summary.
 */

import type { QuarantineRecord } from '../../lambdas/core/quarantine-record';
import type { LedgerEntry } from '../../lambdas/ports/ledger';

export type TimelineKind = 'attempt' | 'failure' | 'external' | 'quarantine' | 'operator' | 'ledger';

export interface TimelineEvent {
  /** ISO-8601; absent for what the record states without a time (it follows the event before). */
  readonly at?: string;
  readonly kind: TimelineKind;
  readonly what: string;
  readonly detail?: string;
}

/** `kafka`: the record came from a Kafka topic, its group is its topic-partition. */
export function recordTimeline(
  record: QuarantineRecord,
  ledger: LedgerEntry | undefined,
  kafka = false,
): TimelineEvent[] {
  const events: TimelineEvent[] = [...attempts(record)];
  if (record.external) {
    const { name, status, at, idempotencyKey } = record.external;
    events.push({
      at,
      kind: 'external',
      what: `Outside call ${name}: ${EXTERNAL_STATUS[status]}`,
      ...(idempotencyKey === undefined ? {} : { detail: `idempotency key ${idempotencyKey}` }),
    });
  }
  events.push({
    at: record.createdAt,
    kind: 'quarantine',
    what: `Quarantined: ${record.reason}`,
    detail:
      record.messageGroupId === undefined
        ? `from ${record.sourceQueueArn}`
        : `from ${record.sourceQueueArn}, ${kafka ? 'partition' : 'FIFO group'} ${record.messageGroupId}${record.orderBroken ? ' (its order was broken)' : ''}`,
  });
  if (record.waitingSince) {
    events.push({
      at: record.waitingSince,
      kind: 'operator',
      what: 'Waiting for an operator: did the outside system receive the call?',
    });
  }
  for (const entry of record.audit) {
    events.push({
      at: entry.when,
      kind: 'operator',
      what: `${entry.what} by ${entry.who}`,
      detail: entry.why,
    });
  }
  if (ledger?.replayedAt !== undefined && ledger.generation > record.generation) {
    events.push({
      at: ledger.replayedAt,
      kind: 'ledger',
      what: `Ledger reset for a replay: generation ${ledger.generation}, a fresh attempt budget`,
    });
  }
  return inOrder(events);
}

const EXTERNAL_STATUS: Readonly<Record<string, string>> = {
  pending: 'sent, no result recorded (it may or may not have happened)',
  done: 'done, its result recorded',
  'not-sent': 'refused before sending',
};

function attempts(record: QuarantineRecord): TimelineEvent[] {
  const counts = `${record.attemptsStarted} started, ${record.attemptsCharged} charged (generation ${record.generation})`;
  const first: TimelineEvent = {
    at: record.firstAttemptAt,
    kind: 'attempt',
    what: 'First attempt started',
    detail: counts,
  };
  const last: TimelineEvent[] =
    record.attemptsStarted > 1
      ? [
          {
            at: record.lastAttemptAt,
            kind: 'attempt',
            what: `Attempt ${record.attemptsStarted} started (the last)`,
          },
        ]
      : [];
  const ending: TimelineEvent = record.lastError
    ? {
        kind: 'failure',
        what: `Failed: ${record.lastError.class} ${record.lastError.name}: ${record.lastError.message.split('\n')[0]}`,
        detail: `last known stage ${record.stage}`,
      }
    : {
        kind: 'failure',
        what: 'Crashed: no error was caught (the worker died or timed out)',
        detail: `last known stage ${record.stage}`,
      };
  return [first, ...last, ending];
}

/**
 * By time; an event without one stays right after the event before it. Stable, so events of the
 * same instant keep the order the record gives them.
 */
function inOrder(events: readonly TimelineEvent[]): TimelineEvent[] {
  let lastTime = '';
  const keyed = events.map((event, index) => {
    lastTime = event.at ?? lastTime;
    return { event, time: lastTime, index };
  });
  return keyed.sort((a, b) => a.time.localeCompare(b.time) || a.index - b.index).map(({ event }) => event);
}
