/**
 * The `faults` of a scenario (see `ScenarioFault` in scenario.ts), checked field by field: a
 * fault that names an unknown point, an unknown kind or a message the scenario does not send
 * would never fire, and the scenario would pass without testing what it says it tests.
 */
import { FAULT_KINDS, FAULT_POINTS, isFaultKind, isFaultPoint } from '../faults/fault-points';
import { KEYED_FAULT_POINTS } from '../faults/shared-plan';
import { integer, isObject, show, unknownFields } from './scenario-checks';

const FAULT_FIELDS = ['at', 'error', 'times', 'message'];
/** Enough for any scenario that settles within its timeout; a typo such as 1000 is refused. */
const MAX_FAULT_TIMES = 100;

export function faultsProblems(value: unknown, at: string, labels: ReadonlySet<string>): string[] {
  if (!Array.isArray(value) || value.length === 0) {
    return [`${at} must be a non-empty array of {at, error, times?, message?} (given ${show(value)})`];
  }
  return value.flatMap((fault, index) => faultProblems(fault, `${at}[${index}]`, labels));
}

function faultProblems(fault: unknown, here: string, labels: ReadonlySet<string>): string[] {
  if (!isObject(fault))
    return [`${here} must be an object {at, error, times?, message?} (given ${show(fault)})`];
  const problems = unknownFields(fault, FAULT_FIELDS, (field) => `${here}.${field}`);
  if (!isFaultPoint(fault.at)) {
    problems.push(`${here}.at must be one of ${FAULT_POINTS.join(', ')} (given ${show(fault.at)})`);
  }
  if (!isFaultKind(fault.error)) {
    problems.push(`${here}.error must be one of ${FAULT_KINDS.join(', ')} (given ${show(fault.error)})`);
  }
  if (fault.times !== undefined) problems.push(...integer(fault.times, `${here}.times`, 1, MAX_FAULT_TIMES));
  if (fault.message !== undefined) {
    if (typeof fault.message !== 'string' || !labels.has(fault.message)) {
      problems.push(`${here}.message names no message of this scenario (given ${show(fault.message)})`);
    } else if (isFaultPoint(fault.at) && !KEYED_FAULT_POINTS.includes(fault.at)) {
      problems.push(
        `${here}.message cannot restrict ${fault.at}: its calls name no message ` +
          `(points that do: ${KEYED_FAULT_POINTS.join(', ')})`,
      );
    }
  }
  return problems;
}
