/**
 * Defects planted into the real consumer, one at a time, by planted-bugs.test.ts (its `vi.mock`
 * factories route the consumer's own functions through these wrappers). Each breaks one rule of
 * docs/behaviour.md the way a plausible change would; the campaign must report each within
 * 2,000 schedules. With no defect planted every wrapper is the identity.
 */
import type { SQSRecord } from 'aws-lambda';
import { LEDGER_STATE } from '../../contract/ledger';
import type { processRecord } from '../../lambdas/consumer/record-lifecycle';
import type { ProcessorModule, QueueMessage, WorkContext } from '../../lambdas/consumer/types';
import type { workContext } from '../../lambdas/consumer/work-context';
import type { DeliveryDecision } from '../../lambdas/core/delivery';
import type { LedgerItem, Policy } from '../../lambdas/core/types';

export const DEFECTS = [
  /** Rule 5: decideAfterCrash charges 0 for every crash. */
  'crash-never-charged',
  /** A message under another message's key acknowledged as a duplicate (its bytes stored nowhere). */
  'collision-acknowledged-as-duplicate',
  /** Rule 8: the pending record of a keyless external call is never written. */
  'keyless-pending-skipped',
  /** The last receive before the backstop is never recognised (isLastReceive always false). */
  'last-receive-never-seen',
  /** Rule 1: the attempt is recorded after the work instead of before it. */
  'attempt-recorded-after-work',
] as const;

export type Defect = (typeof DEFECTS)[number];

/** The defect planted now; none: the consumer as it is. */
export const planted: { defect?: Defect } = {};

export function plantedDelivery(
  decision: DeliveryDecision,
  previous: LedgerItem,
  policy: Policy,
): DeliveryDecision {
  if (planted.defect === 'collision-acknowledged-as-duplicate' && decision.kind === 'key-collision')
    return { kind: 'duplicate', state: LEDGER_STATE.completed };
  if (planted.defect !== 'crash-never-charged') return decision;
  if ((decision.kind !== 'proceed' && decision.kind !== 'quarantine') || decision.crash === 'none')
    return decision;
  // Without the crash's charge the limit is not reached: the crash limit becomes another attempt.
  if (
    decision.kind === 'quarantine' &&
    decision.reason === 'crash-limit' &&
    previous.charged < policy.attemptLimit
  ) {
    const { crash, failureEvent } = decision;
    return {
      kind: 'proceed',
      charge: 0,
      crash,
      startIsolation: crash === 'unattributable',
      ...(failureEvent === undefined ? {} : { failureEvent }),
    };
  }
  return { ...decision, charge: 0 };
}

export function plantedLastReceive(lastReceive: boolean): boolean {
  return planted.defect === 'last-receive-never-seen' ? false : lastReceive;
}

/** The attempt's ledger as its work context writes to it, without a keyless call's `pending`. */
export function plantedWorkContext(actual: typeof workContext): typeof workContext {
  return (deps, attempt, remainingTimeMs) => {
    if (planted.defect !== 'keyless-pending-skipped') return actual(deps, attempt, remainingTimeMs);
    const ledger = Object.create(deps.ledger) as typeof deps.ledger;
    ledger.recordExternal = async (key, attemptId, external, unrepeatable) =>
      external.status === 'pending' && external.idempotencyKey === undefined
        ? ({ key } as Awaited<ReturnType<typeof ledger.recordExternal>>)
        : deps.ledger.recordExternal(key, attemptId, external, unrepeatable);
    return actual({ ...deps, ledger }, attempt, remainingTimeMs);
  };
}

/**
 * The work runs first (its attempt number guessed from SQS's receive count, its stages and calls
 * written nowhere), then the record's life as before, with the work's outcome replayed into it.
 */
export function plantedProcessRecord(actual: typeof processRecord, keyFor: KeyFor): typeof processRecord {
  return async (deps, session, record, remainingTimeMs) => {
    if (planted.defect !== 'attempt-recorded-after-work')
      return actual(deps, session, record, remainingTimeMs);
    const key = keyFor(record, deps.config.messageKeyPath);
    const failure = await workUnrecorded(deps.processor, record, key, remainingTimeMs);
    const replayed: ProcessorModule = {
      ...(deps.processor.classify === undefined ? {} : { classify: deps.processor.classify }),
      async process() {
        if (failure !== undefined) throw failure.error;
      },
    };
    return actual({ ...deps, processor: replayed }, session, record, remainingTimeMs);
  };
}

/** The key the consumer works a record under (begin-attempt.ts `keyOfRecord`). */
type KeyFor = (record: SQSRecord, keyPath: string | undefined) => string;

async function workUnrecorded(
  processor: ProcessorModule,
  record: SQSRecord,
  key: string,
  remainingTimeMs: () => number,
): Promise<{ readonly error: unknown } | undefined> {
  const message: QueueMessage = {
    messageId: record.messageId,
    key,
    body: record.body,
    attributes: record.attributes as unknown as Record<string, string | undefined>,
    messageAttributes: record.messageAttributes,
    attempt: Number(record.attributes.ApproximateReceiveCount ?? '1'),
  };
  const ctx: WorkContext = {
    remainingTimeMs,
    stage: async () => undefined,
    external: (_name, call) => call(),
  };
  try {
    await processor.process(message, ctx);
    return undefined;
  } catch (error) {
    return { error };
  }
}
