/**
 * An attempt's lease (issue 38). SQS delivers a message again only after its visibility timeout
 * (six function timeouts), so an attempt found in flight then is long dead. Kafka's mapping
 * delivers a failed batch again at once: the record finds its crashed attempt younger than the
 * function timeout, and the timeout alone cannot tell a dead worker from a live one (a rebalance
 * can hand a partition to a second poller while the first still works on it). Each such delivery
 * would hold the partition for an invocation that runs nothing. So on Kafka the worker renews a
 * lease on its attempt while it works (consumer/lease-keeper.ts), and a lease that lapsed is a
 * worker that died (core/delivery.ts): the next delivery waits out at most a lease, in itself.
 */

/**
 * A quarter of the function timeout, between 2 and 30 s: a redelivery waits at most this long
 * before it may run the record, and a worker writes once a third of it while it works.
 */
export function attemptLeaseMs(timeoutSeconds: number): number {
  return Math.min(30_000, Math.max(2_000, timeoutSeconds * 250));
}

/** Three renewals a lease: a worker may be late by two thirds of it before it is taken for dead. */
export function leaseRenewalMs(leaseMs: number): number {
  return Math.floor(leaseMs / 3);
}
