import type { ErrorEvidence } from './types';

/**
 * SQS moves a message to the backstop once it has been received `maxReceiveCount` times and
 * comes back again. Whatever hands a record back uncharged (a pause, a failed probe) must not
 * do so on its last receive: past the backstop there is no evidence and no `pq`. There, rule 3
 * outranks rule 7: the message is quarantined, uncharged, with its exact bytes.
 */
export function isLastReceive(receiveCount: number, maxReceiveCount: number): boolean {
  return receiveCount >= maxReceiveCount;
}

/**
 * Kafka counts no deliveries, and on a partition no record probes past the one that failed: a
 * record's failed half-open probes stand in for SQS's receives. The one that reaches the limit is
 * its last receive: quarantined `receive-limit`, uncharged, instead of held with the breaker for
 * good (rule 3 over rule 7, as on a queue).
 */
export function isLastFailedProbe(failedProbesBefore: number, maxFailedProbes: number): boolean {
  return failedProbesBefore + 1 >= maxFailedProbes;
}

/** SQS's ApproximateReceiveCount of a record; absent (a test's record): its first receive. */
export function receiveCountOf(attributes: { readonly ApproximateReceiveCount?: string }): number {
  return Number(attributes.ApproximateReceiveCount ?? '1');
}

/**
 * The evidence of a record set aside on its last receive: another record of its batch, also on
 * its last receive, ran first, and a crash of that one would hand this one back to the backstop.
 */
export function besideAnotherLastReceiveEvidence(runsInsteadMessageId: string): ErrorEvidence {
  return {
    class: 'transient',
    name: 'LastReceiveBesideAnother',
    message: `not run: on its last receive in a batch where ${runsInsteadMessageId}, also on its last receive, ran first`,
    stackHead: '',
  };
}
