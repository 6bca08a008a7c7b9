import { isLastFailedProbe, isLastReceive, receiveCountOf } from '../core/receive-limit';
import type { LedgerItem } from '../core/types';
import type { SourceRecord } from '../ports/source';
import type { ConsumerDeps } from './deps';

/** Whether SQS moves this record to the backstop if it is handed back once more. */
export function onLastReceive(deps: ConsumerDeps, record: SourceRecord): boolean {
  return isLastReceive(receiveCountOf(record.attributes), deps.config.backstopMaxReceiveCount);
}

/** Whether this failed probe is the record's last on a source that counts no receives (Kafka). */
export function onLastFailedProbe(deps: ConsumerDeps, item: LedgerItem): boolean {
  const kafka = deps.config.kafka;
  return kafka !== undefined && isLastFailedProbe(item.failedProbes ?? 0, kafka.maxFailedProbes);
}
