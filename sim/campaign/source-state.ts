/**
 * Where a schedule's messages still wait, whatever its source: queued in SQS (or moved to its
 * backstop), or a Kafka record the consumer group has not committed past. A message that waits
 * has not left: what the invariants judge of a message that left does not apply to it yet.
 */
import type { Observation } from './run-schedule';
import type { SentMessage } from './schedule-source';

/** Still where the consumer reads it from: in the queue, or not committed. */
export function atTheSource({ world, kafka }: Observation, messageId: string): boolean {
  if (kafka === undefined) return world.queue.messages.has(messageId);
  const record = kafka.log.records.get(messageId);
  return record !== undefined && record.offset >= kafka.topic.committedOffset(record.partition);
}

/**
 * A Kafka record behind an earlier record of its partition that is not committed yet: held by the
 * order (the consumer may never have looked at it, and its ledger has nothing to say).
 */
export function heldBehindItsPartition({ kafka }: Observation, messageId: string): boolean {
  const record = kafka?.log.records.get(messageId);
  return (
    kafka !== undefined &&
    record !== undefined &&
    record.offset > kafka.topic.committedOffset(record.partition)
  );
}

/** Every message still at the source. */
export function waitingAtTheSource(observation: Observation): SentMessage[] {
  return [...observation.sent.values()].filter((message) => atTheSource(observation, message.messageId));
}

/** The bytes a message was sent with: its exact ones (a Kafka value), or its body's UTF-8. */
export function sentBytes(message: { readonly body: string; readonly bytes?: Buffer }): Buffer {
  return message.bytes ?? Buffer.from(message.body, 'utf8');
}
