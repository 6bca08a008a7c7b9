/**
 * What the consumer says about each record, read from its log lines as the runner hands them
 * over: `{"event":"record", messageId, outcome, calls}` once per record an invocation finished
 * (lambdas/consumer/batch.ts) and `{"event":"quarantined", messageId, quarantineId, reason}`
 * (lambdas/consumer/quarantine-step.ts). A crash writes nothing: the runner's 'crash' and
 * 'timeout' events say which messages the dead environment held, and its 'invoke' events how
 * many times each message was received (the runner hands every message it receives to one).
 */
import { QUARANTINED_LOG_EVENT, RECORD_LOG_EVENT } from '../contract/log-events';
import type { CallCounts } from '../lambdas/consumer/call-meter';
import type { RecordOutcome } from '../lambdas/consumer/record-lifecycle';
import type { ObservedRunner } from '../tools/local-aws/runner';

export type MeasuredCalls = CallCounts;

export interface RecordLine {
  readonly messageId: string;
  readonly outcome: RecordOutcome;
  readonly calls: MeasuredCalls;
  /** When it was logged (the logger's timestamp, else its arrival), epoch milliseconds. */
  readonly at: number;
}

export interface QuarantinedLine {
  readonly messageId: string;
  readonly quarantineId: string;
  readonly reason: string;
}

/** A line the consumer logs about the whole consumer (a pause, a stop), by its `event`. */
export interface ControlLine {
  readonly event: string;
  readonly reason?: string;
  /** When it was logged (the logger's timestamp, else its arrival), epoch milliseconds. */
  readonly at: number;
}

export interface Death {
  readonly kind: 'crash' | 'timeout';
  /** Every message of the batch the environment held, started or not. */
  readonly messageIds: readonly string[];
  readonly signal?: string | null;
}

export interface ConsumerLogListener {
  record?(line: RecordLine): void;
  quarantined?(line: QuarantinedLine): void;
  control?(line: ControlLine): void;
  death?(death: Death): void;
}

/** Everything seen so far, in order of arrival. */
export interface ConsumerLog {
  readonly records: RecordLine[];
  readonly quarantined: QuarantinedLine[];
  readonly controls: ControlLine[];
  readonly deaths: Death[];
  /** The record lines of one SQS message. */
  recordsOf(messageId: string): RecordLine[];
  /** How many invocations the runner handed one SQS message to: its receives. */
  receivesOf(messageId: string): number;
  /** The longest an invocation that answered (returned or threw) took, ms; 0 before any answered. */
  slowestAnsweredMs(): number;
  /** Stops listening. */
  close(): void;
}

const CONTROL_EVENTS = new Set([
  'paused',
  'outage-detected',
  'quarantine-share-exceeded',
  'quarantine-unwritable',
]);

export function watchConsumerLog(runner: ObservedRunner, listener: ConsumerLogListener = {}): ConsumerLog {
  const records: RecordLine[] = [];
  const quarantined: QuarantinedLine[] = [];
  const controls: ControlLine[] = [];
  const deaths: Death[] = [];
  const receives = new Map<string, number>();
  let slowestAnsweredMs = 0;
  const answered = ({ durationMs }: { readonly durationMs: number }) => {
    slowestAnsweredMs = Math.max(slowestAnsweredMs, durationMs);
  };
  const unsubscribe = [
    runner.on('result', answered),
    runner.on('function-error', answered),
    runner.on('invoke', ({ messageIds }) => {
      for (const id of messageIds) receives.set(id, (receives.get(id) ?? 0) + 1);
    }),
    runner.on('log', ({ line }) => {
      const entry = parseLine(line);
      if (entry?.event === RECORD_LOG_EVENT && typeof entry.messageId === 'string') {
        const record = { ...(entry as unknown as RecordLine), at: loggedAt(entry) };
        records.push(record);
        listener.record?.(record);
      } else if (entry?.event === QUARANTINED_LOG_EVENT && typeof entry.messageId === 'string') {
        const line = entry as unknown as QuarantinedLine;
        quarantined.push(line);
        listener.quarantined?.(line);
      } else if (typeof entry?.event === 'string' && CONTROL_EVENTS.has(entry.event)) {
        const control: ControlLine = {
          event: entry.event,
          ...(typeof entry.reason === 'string' ? { reason: entry.reason } : {}),
          at: loggedAt(entry),
        };
        controls.push(control);
        listener.control?.(control);
      }
    }),
    runner.on('crash', ({ messageIds, signal }) => {
      if (messageIds.length === 0) return; // died between invocations: nothing was in flight
      const death: Death = { kind: 'crash', messageIds, signal };
      deaths.push(death);
      listener.death?.(death);
    }),
    runner.on('timeout', ({ messageIds }) => {
      const death: Death = { kind: 'timeout', messageIds };
      deaths.push(death);
      listener.death?.(death);
    }),
  ];
  return {
    records,
    quarantined,
    controls,
    deaths,
    recordsOf: (messageId) => records.filter((record) => record.messageId === messageId),
    receivesOf: (messageId) => receives.get(messageId) ?? 0,
    slowestAnsweredMs: () => slowestAnsweredMs,
    close: () => {
      for (const off of unsubscribe) off();
    },
  };
}

/** The logger's timestamp of a line, else now (it has just arrived). */
function loggedAt(entry: Record<string, unknown>): number {
  const logged = typeof entry.timestamp === 'string' ? Date.parse(entry.timestamp) : Number.NaN;
  return Number.isFinite(logged) ? logged : Date.now();
}

/** A log line as its JSON object; anything else (a plain line, an array) is undefined. */
export function parseLine(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const parsed: unknown = JSON.parse(line);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
