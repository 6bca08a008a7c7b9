import { isLastReceive, receiveCountOf } from '../core/receive-limit';
import type { SourceRecord } from '../ports/source';
import type { ConsumerDeps } from './deps';

/** Whether SQS moves this record to the backstop if it is handed back once more. */
export function onLastReceive(deps: ConsumerDeps, record: SourceRecord): boolean {
  return isLastReceive(receiveCountOf(record.attributes), deps.config.backstopMaxReceiveCount);
}
