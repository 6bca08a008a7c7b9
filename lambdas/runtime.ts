/**
 * 'poison-quarantine/runtime': what a processing module imports. The consumer bundle loads
 * these same files, so an error class thrown by the user's module is the one the classifier
 * tests with `instanceof`.
 *
 * @module poison-quarantine/runtime
 */

export type {
  ExternalCallOptions,
  KafkaHeader,
  KafkaRecordDetails,
  Processor,
  ProcessorModule,
  QueueMessage,
  WorkContext,
} from './consumer/types';
export { classifyError, type UserClassifier } from './core/classify';
export { OutcomeUnknownError, PermanentError, PoisonQuarantineError, TransientError } from './core/errors';
export type { ErrorClass } from './core/types';
