/**
 * Where a schedule's messages wait, and how they are sent and polled: an SQS queue (mapping.ts
 * plays its event source mapping) or a Kafka topic (kafka-polls.ts plays Lambda's Kafka mapping,
 * kafka-log.ts keeps what the Kafka invariants need). run-schedule.ts drives either alike.
 */
import { MESSAGE_KEY_ATTRIBUTE, REPLAY_OF_ATTRIBUTE } from '../../contract/message-attributes';
import { MemoryTopic } from '../world/memory-topic';
import { WORLD_TOPIC, type World } from '../world/world';
import { KafkaLog } from './kafka-log';
import { KafkaPolls } from './kafka-polls';
import type { Mapping } from './mapping';
import type { PauseModel } from './pause-model';
import type { MessageSpec, Schedule } from './schedule';
import type { Trace } from './trace';

export interface SentMessage {
  readonly messageId: string;
  readonly body: string;
  readonly key: string;
  /** The exact bytes where the body's text may not hold them (a Kafka value); absent: the body's UTF-8. */
  readonly bytes?: Buffer;
}

/** An operator's replay: the record it was made from and the ledger key it continues. */
export interface Replay {
  readonly replayOf: string;
  readonly messageKey: string;
}

/** A Kafka schedule's topic and what the campaign saw happen at it. */
export interface KafkaObservation {
  readonly topic: MemoryTopic;
  readonly log: KafkaLog;
}

export interface ScheduleSource {
  /** Sends a message (SQS, as `messageId`) or produces a record (Kafka, at its partition's next offset). */
  readonly send: (spec: MessageSpec, messageId: string, replay?: Replay) => SentMessage;
  /** Messages still queued, or records not committed. */
  readonly size: () => number;
  /** When the next one can be received, if one waits. */
  readonly nextVisibleAt: () => number | undefined;
  /** One poll of the drain (its `poll`th). */
  readonly drainPoll: (poll: number) => Promise<boolean>;
  /** The poll that meets a probe window while time passes. */
  readonly probePoll: () => Promise<boolean>;
  /** A Kafka schedule's topic, its log and its mapping. */
  readonly kafka?: KafkaObservation & { readonly polls: KafkaPolls };
}

/** The world's SQS queue. */
export function queueSource(world: World, mapping: Mapping): ScheduleSource {
  return {
    send: (spec, messageId, replay) => {
      const attributes: Record<string, string> =
        replay === undefined
          ? {}
          : { [REPLAY_OF_ATTRIBUTE]: replay.replayOf, [MESSAGE_KEY_ATTRIBUTE]: replay.messageKey };
      const messageAttributes = Object.fromEntries(
        Object.entries(attributes).map(([name, value]) => [name, { dataType: 'String', stringValue: value }]),
      );
      world.queue.send({ messageId, body: spec.body, messageAttributes });
      const key = mapping.keyOf({ messageId, body: spec.body, messageAttributes });
      return { messageId, body: spec.body, key };
    },
    size: () => world.queue.messages.size,
    nextVisibleAt: () => world.queue.nextVisibleAt(),
    drainPoll: (poll) => mapping.poll([poll % 2]),
    probePoll: () => mapping.poll([0]),
  };
}

/** A Kafka topic of the schedule's partitions; its log taps the ledger after the campaign's taps. */
export function topicSource(
  world: World,
  trace: Trace,
  pause: PauseModel,
  schedule: Schedule & { readonly kafka: NonNullable<Schedule['kafka']> },
  mapping: Mapping,
): ScheduleSource {
  const topic = new MemoryTopic(WORLD_TOPIC, schedule.kafka.partitions, () => world.clock.now());
  const log = new KafkaLog(world, trace, topic);
  log.tap();
  const polls = new KafkaPolls(world, pause, schedule.config, mapping, topic, log);
  const mixed = schedule.kafka.mixed === true;
  return {
    send: (spec, _messageId, replay) => polls.produce(spec, replay),
    size: () => polls.size(),
    nextVisibleAt: () => polls.nextPollAt(),
    drainPoll: () => polls.drainPoll(mixed),
    probePoll: () => polls.drainPoll(mixed),
    kafka: { topic, log, polls },
  };
}
