/**
 * The `faults` of a scenario: a fault injected into the consumer's own calls to AWS
 * (sim/faults/inject.ts), e.g. `{"at": "ledger.start", "error": "throttle", "times": 2,
 * "message": "M1"}`. A fault that names an unknown point, an unknown kind or a message the
 * scenario does not send would never fire, and the scenario would pass without testing what it
 * says it tests: the schema refuses the first two, `faultReferenceProblems` the others.
 */
import type { z } from 'zod';
import { FAULT_KINDS, FAULT_POINTS } from '../../sim/faults/fault-points';
import { KEYED_FAULT_POINTS } from '../faults/shared-plan';
import { nonEmptyArray, oneOf, show, strictObject, text, wholeNumber } from './scenario-fields';

/** Enough for any scenario that settles within its timeout; a typo such as 1000 is refused. */
const MAX_FAULT_TIMES = 100;

export const scenarioFault = strictObject({
  at: oneOf(FAULT_POINTS).meta({
    description:
      'Which call fails, `<port>.<method>` (sim/faults/fault-points.ts), e.g. `ledger.start`, ' +
      '`ledger.recordExternal:done`, `quarantine.putRecord`.',
  }),
  error: oneOf(FAULT_KINDS).meta({
    description:
      'What goes wrong: `throttle`, `server-error` and `access-denied` fail the call before it reaches ' +
      'AWS, as the SDK error would; `timeout-after-send` lets it land and then fails it; `crash` ' +
      'SIGKILLs the worker before the call, `crash-after-send` after it landed.',
  }),
  times: wholeNumber(1, MAX_FAULT_TIMES).optional().meta({
    description: 'How many matching calls fail, counted across every process of the run (default 1).',
  }),
  message: text(64)
    .optional()
    .meta({
      description:
        "Only calls about this message (its label). Only calls that name a message key can match: the ledger's " +
        '(except `ledger.inFlightKeysOf`), `quarantine.putRecord` and `operations.startOutcomeUnknown`.',
    }),
}).meta({
  description:
    "A fault injected into the consumer's own calls to AWS. The plan is shared by every execution environment " +
    'of the run; the report lists how many times each fired, and one that fired less than `times` fails the scenario.',
});

export const scenarioFaults = nonEmptyArray(scenarioFault, '{at, error, times?, message?}').meta({
  description: "Faults injected into the consumer's AWS calls, tried in this order for each call.",
});

export type ScenarioFault = z.output<typeof scenarioFault>;

/** Each fault's `message`, checked against the scenario's labels and the points that name a message. */
export function faultReferenceProblems(
  faults: unknown,
  labels: ReadonlySet<string>,
): { readonly path: (string | number)[]; readonly message: string }[] {
  if (!Array.isArray(faults)) return [];
  return faults.flatMap((fault: Partial<Record<string, unknown>>, index) => {
    // A message that is no string is the schema's to name.
    if (typeof fault !== 'object' || fault === null || typeof fault.message !== 'string') return [];
    const path = [index, 'message'];
    if (!labels.has(fault.message))
      return [{ path, message: `names no message of this scenario (given ${show(fault.message)})` }];
    const point = KEYED_FAULT_POINTS.find((keyed) => keyed === fault.at);
    if (point !== undefined || !FAULT_POINTS.some((known) => known === fault.at)) return [];
    return [
      {
        path,
        message:
          `cannot restrict ${String(fault.at)}: its calls name no message ` +
          `(points that do: ${KEYED_FAULT_POINTS.join(', ')})`,
      },
    ];
  });
}
