/**
 * Rule 7's step, the one place a record's failure is judged as a possible outage: its failure
 * event is reported (enough distinct keys in the window pause consumption), a half-open probe
 * that failed on a message not suspected of poison is recorded against the dependency, and when
 * the dependency is down the attempt is settled uncharged and the record handed back for the
 * next probe (or, on its last receive, quarantined: hand-back.ts; on Kafka, at its last failed
 * probe).
 */

import { isPoisonSuspect, probeFailureKind } from '../core/breaker';
import type { ErrorClass, LedgerItem } from '../core/types';
import type { SourceRecord } from '../ports/source';
import type { ConsumerDeps } from './deps';
import { handBackUnlessLastReceive } from './hand-back';
import { onLastFailedProbe } from './last-receive';
import { reportFailureEvent } from './outage-watch';
import { quarantined } from './quarantine-step';
import { PAUSED, type RecordOutcome, type RecordSession } from './record-outcome';

export interface FailureEvent {
  readonly key: string;
  readonly kind: 'transient' | 'crash';
}

export interface JudgedFailure {
  readonly event: FailureEvent;
  /** The item as it goes back: its charges say whether a failed probe is the message's own. */
  readonly item: LedgerItem;
  readonly errorClass: ErrorClass | 'crash';
  /**
   * Whether a failed probe alone hands the record back uncharged. A transient failure: yes, a
   * probe is judged, not paid for (docs/behaviour.md). A crash: no, it is rule 6's to
   * attribute, charged only when attributable and told apart by an isolation trial; the failed
   * probe still counts against the dependency.
   */
  readonly failedProbeHandsBack: boolean;
  /** Ends the attempt without a charge; `failedProbe` counts one in the item's failedProbes (rule 7's probe). */
  readonly settle: (failedProbe: boolean) => Promise<unknown>;
}

/** Reports a failure event; this session stops starting records when it paused consumption. */
export async function reportOutage(
  deps: ConsumerDeps,
  session: Pick<RecordSession, 'unrecorded' | 'controlNow' | 'lastCompletedAt' | 'pause'>,
  event: FailureEvent,
): Promise<boolean> {
  const paused = await reportFailureEvent(deps, session, event);
  if (paused) session.pause('outage');
  return paused;
}

/**
 * The failure reported and judged; the record's outcome when it goes back for an outage, or
 * undefined when the caller ends the attempt as the core decided.
 */
export async function handBackForOutage(
  deps: ConsumerDeps,
  session: RecordSession,
  record: SourceRecord,
  failure: JudgedFailure,
): Promise<RecordOutcome | undefined> {
  const paused = await reportFailureEvent(deps, session, failure.event);
  const probeFailed = session.probing && !isPoisonSuspect(failure.item, failure.errorClass);
  if (probeFailed) await deps.control.recordProbe(probeFailureKind(failure.item));
  if (!paused && !(probeFailed && failure.failedProbeHandsBack)) return undefined;
  session.pause('outage');
  // Rule 7: during an outage nothing is charged and nothing is quarantined...
  await failure.settle(probeFailed);
  // ... but a Kafka record that fails every probe would hold its partition and the breaker for
  // good: its last failed probe is its last receive.
  if (probeFailed && onLastFailedProbe(deps, failure.item)) {
    return quarantined(deps, session, record, failure.item, 'receive-limit', 0);
  }
  return handBackUnlessLastReceive(deps, session, record, failure.item, async () => PAUSED);
}
