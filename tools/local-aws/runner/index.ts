/** The local event-source runner: Lambda's SQS event source mapping played against the local AWS. */
export { startEventSourceRunner } from './event-source-runner';
export type {
  EventSourceRunner,
  HandlerRef,
  MappingLink,
  RunnerEventName,
  RunnerEvents,
  RunnerOptions,
  RunnerStats,
} from './types';
