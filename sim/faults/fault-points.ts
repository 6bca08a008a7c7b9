/**
 * The named places where a fault can be injected into the consumer: every call it makes through
 * its ports (lambdas/ports/consumer-ports.ts). A name is `<port>.<method>`, and for the external-call
 * record `ledger.recordExternal:<status>`, so a scenario can fail the `done` write alone.
 * `npm run -s campaign -- --list-fault-points` prints this list.
 */
export const FAULT_POINTS = [
  'ledger.start',
  'ledger.restartAfterCrash',
  'ledger.renewLease',
  'ledger.recordStage',
  'ledger.recordExternal:pending',
  'ledger.recordExternal:done',
  'ledger.recordExternal:not-sent',
  'ledger.complete',
  'ledger.recordFailure',
  'ledger.beginQuarantine',
  'ledger.markQuarantined',
  'ledger.inFlightKeysOf',
  'control.snapshot',
  'control.recordFailureEvent',
  'control.failuresSince',
  'control.crashInFlight',
  'control.recordLostCompletion',
  'control.lostCompletion',
  'control.tripBreaker',
  'control.recordProbe',
  'control.startIsolation',
  'control.isolationMessagePassed',
  'quarantine.putContent',
  'quarantine.putRecord',
  'quarantine.openRecordsAtLeast',
  'operations.startOutcomeUnknown',
  'operations.startPause',
  'queue.delay',
  'queue.acknowledge',
] as const;
export type FaultPoint = (typeof FAULT_POINTS)[number];

/**
 * What goes wrong at a fault point. The first three fail the call before it reaches AWS;
 * `timeout-after-send` lets the call land and then fails it, so the caller cannot tell whether
 * it did. `crash` kills the worker before the call, `crash-after-send` after it landed.
 */
export const FAULT_KINDS = [
  'throttle',
  'server-error',
  'access-denied',
  'timeout-after-send',
  'crash',
  'crash-after-send',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];
