/**
 * The user's Kafka function without poison-quarantine, as the native mapping's users write it:
 * each record of the batch decoded and sent to the dependency, in order; the first failure fails
 * the invocation. The poison kills the worker in its decoder (a native protobuf library's crash,
 * an out-of-memory): the invocation ends without an answer. A 503 from the dependency is thrown.
 */
import type { SelfManagedKafkaEvent } from 'aws-lambda';
import { isPoison } from './scenario';

/** The worker died: the invocation ends with no answer (Runtime.ExitError). */
export class WorkerDied extends Error {
  override readonly name = 'WorkerDied';
}

export class DependencyUnavailable extends Error {
  override readonly name = 'DependencyUnavailable';
}

export function nativeKafkaHandler(dependency: { readonly down: () => boolean }) {
  return (event: SelfManagedKafkaEvent): void => {
    for (const record of Object.values(event.records).flat()) {
      const value = Buffer.from(record.value, 'base64');
      if (isPoison(value)) throw new WorkerDied('the decoder crashed the worker');
      JSON.parse(value.toString('utf8'));
      if (dependency.down()) throw new DependencyUnavailable('the dependency answered 503');
    }
  };
}
