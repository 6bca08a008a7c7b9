/**
 * One invocation: read the control state (cached), order the records, run them at the allowed
 * concurrency, and answer with a partial batch response. What is not completed, duplicate or
 * quarantined goes back to the queue; nothing is dropped.
 */
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { effectiveConcurrency, NO_TRIAL } from '../core/isolation';
import type { ControlCache } from './control-cache';
import type { ConsumerDeps } from './deps';
import { type BatchSession, processRecord, type RecordOutcome } from './record-lifecycle';
import type { ShareWindow } from './share-window';

export interface BatchState {
  readonly cache: ControlCache;
  readonly shares: ShareWindow;
}

const RETURNED: RecordOutcome = { kind: 'returned', why: 'not started' };

export async function handleBatch(
  deps: ConsumerDeps,
  state: BatchState,
  event: SQSEvent,
  context: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<SQSBatchResponse> {
  const snapshot = await state.cache.get();
  if (snapshot.breaker?.state === 'open') {
    // Paused (the mapping is being disabled): touch nothing, charge nothing.
    return { batchItemFailures: event.Records.map((record) => ({ itemIdentifier: record.messageId })) };
  }
  const isolationActive = snapshot.isolation?.active === true;
  const session: BatchSession = {
    shares: state.shares,
    probing: snapshot.breaker?.state === 'half-open',
    isolationActive,
    controlChanged: () => state.cache.invalidate(),
  };
  const concurrency = effectiveConcurrency(snapshot.isolation ?? NO_TRIAL, deps.config.inProcessConcurrency);
  const outcomes = new Map<string, RecordOutcome>();
  const run = async (record: SQSRecord) => {
    const { result, calls } = await deps.meter.measure(() =>
      processRecord(deps, session, record, () => context.getRemainingTimeInMillis()),
    );
    outcomes.set(record.messageId, result);
    deps.logger.info('record processed', {
      event: 'record',
      messageId: record.messageId,
      outcome: result,
      calls,
    });
    return result;
  };
  if (deps.config.fifo) {
    await runFifo(event.Records, run);
  } else {
    await runPool(suspectsLast(event.Records), concurrency, run);
  }
  const failed = event.Records.filter((record) => {
    const outcome = outcomes.get(record.messageId) ?? RETURNED;
    return outcome.kind === 'retry' || outcome.kind === 'returned';
  });
  return { batchItemFailures: failed.map((record) => ({ itemIdentifier: record.messageId })) };
}

/**
 * Records SQS has delivered before go last, so a suspect that kills the process cannot take
 * fresh work down with it (rule 10); completed work is never redone either way (rule 13).
 */
function suspectsLast(records: readonly SQSRecord[]): SQSRecord[] {
  const delivered = (record: SQSRecord) => Number(record.attributes.ApproximateReceiveCount ?? '1') > 1;
  return [...records.filter((record) => !delivered(record)), ...records.filter(delivered)];
}

async function runPool(
  records: readonly SQSRecord[],
  concurrency: number,
  run: (record: SQSRecord) => Promise<RecordOutcome>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < records.length) {
      const record = records[next++];
      await run(record);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, records.length) }, worker));
}

/**
 * FIFO: records in order, one at a time. After a record of a group is not finished, the rest of
 * that group is returned unprocessed, as Lambda itself would, to keep the group's order.
 */
async function runFifo(records: readonly SQSRecord[], run: (record: SQSRecord) => Promise<RecordOutcome>) {
  const blocked = new Set<string>();
  for (const record of records) {
    const group = record.attributes.MessageGroupId ?? '';
    if (blocked.has(group)) continue;
    const outcome = await run(record);
    if (outcome.kind === 'retry' || outcome.kind === 'returned') blocked.add(group);
  }
}
