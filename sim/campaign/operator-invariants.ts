/**
 * What only a person may do (rules 4 and 12): move a record out of quarantine, and replay one
 * only once its cause is recorded.
 */
import { QUARANTINE_STATUS } from '../../contract/quarantine';
import { UNIDENTIFIED_CAUSE } from '../../lambdas/core/operator';
import type { CheckResult } from './check-result';
import type { Observation } from './run-schedule';

const IN_QUARANTINE = new Set<string>([QUARANTINE_STATUS.open, QUARANTINE_STATUS.awaitingOperator]);

/** Rule 4: a record out of open or awaiting-operator got there by an operator's decision. */
export function recordsLeaveByAnOperator({ world, trace }: Observation): CheckResult {
  const records = [...world.quarantine.records.values()];
  const problems = records
    .filter((record) => !IN_QUARANTINE.has(record.status) && !trace.operatorDecided.has(record.id))
    .map((record) => `record ${record.id} is ${record.status}, and no operator decided it`);
  return { applicable: records.length > 0, problems };
}

/**
 * Rule 12: every record replayed by `pq replay` has a cause other than "unidentified". An
 * outcome-unknown record is replayed by the operator's `not-done` answer, which is its cause.
 */
export function replayedOnlyWithACause({ world }: Observation): CheckResult {
  const replayed = [...world.quarantine.records.values()].filter(
    (record) => record.status === QUARANTINE_STATUS.replayed && record.reason !== 'outcome-unknown',
  );
  const problems = replayed
    .filter((record) => record.cause === UNIDENTIFIED_CAUSE)
    .map((record) => `record ${record.id} was replayed with its cause unidentified`);
  return { applicable: replayed.length > 0, problems };
}
