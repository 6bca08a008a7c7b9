/**
 * The local event-source runners: Lambda's SQS event source mapping played against the local AWS,
 * and Lambda's Kafka event source mapping played against the embedded broker (tools/kafka).
 */
export { startEventSourceRunner } from './event-source-runner';
export { startKafkaRunner } from './kafka-runner';
export type {
  KafkaEventShape,
  KafkaPartitionLag,
  KafkaRunner,
  KafkaRunnerEventName,
  KafkaRunnerEvents,
  KafkaRunnerOptions,
  KafkaRunnerStats,
  KafkaStartingPosition,
} from './kafka-types';
export type {
  EventSourceRunner,
  FunctionOptions,
  HandlerRef,
  MappingLink,
  ObservedRunner,
  ObservedRunnerEventName,
  ObservedRunnerEvents,
  RunnerEventName,
  RunnerEvents,
  RunnerOptions,
  RunnerStats,
} from './types';
