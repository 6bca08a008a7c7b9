/**
 * Reads the linked event source mapping from the local AWS. The pause state machine pauses
 * consumption by disabling the mapping and may change its batch size or concurrency; the runner
 * follows what it reads here, as Lambda's pollers follow the real mapping.
 */
import { GetEventSourceMappingCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import { pause } from './pause';

export interface MappingSettings {
  /** Lambda's state name: Enabled, Disabled, Enabling, Disabling, Updating, ... or Deleted. */
  readonly state: string;
  readonly batchSize: number;
  readonly batchingWindowMs: number;
  readonly maximumConcurrency: number;
}

/** Lambda keeps polling while a mapping is being updated; every other state means no polling. */
export function isPollingState(state: string): boolean {
  return state === 'Enabled' || state === 'Updating';
}

/** Settings the mapping may leave unset (moto omits an absent ScalingConfig or window). */
export type MappingFallback = Omit<MappingSettings, 'state'>;

export async function readMapping(
  lambda: LambdaClient,
  uuid: string,
  fallback: MappingFallback,
  signal?: AbortSignal,
): Promise<MappingSettings> {
  try {
    const mapping = await lambda.send(new GetEventSourceMappingCommand({ UUID: uuid }), {
      abortSignal: signal,
    });
    return {
      state: mapping.State ?? 'Unknown',
      batchSize: mapping.BatchSize ?? fallback.batchSize,
      batchingWindowMs:
        mapping.MaximumBatchingWindowInSeconds === undefined
          ? fallback.batchingWindowMs
          : mapping.MaximumBatchingWindowInSeconds * 1000,
      maximumConcurrency: mapping.ScalingConfig?.MaximumConcurrency ?? fallback.maximumConcurrency,
    };
  } catch (error) {
    // A deleted mapping stops its pollers for good.
    if ((error as Error).name === 'ResourceNotFoundException') return { ...fallback, state: 'Deleted' };
    throw error;
  }
}

export interface MappingWatch {
  readonly lambda: LambdaClient;
  readonly uuid: string;
  readonly everyMs: number;
  readonly fallback: MappingFallback;
  readonly signal: AbortSignal;
  readonly onRead: (settings: MappingSettings) => void;
  readonly onError: (message: string) => void;
}

/** Re-reads the mapping every `everyMs` until the signal aborts; a failed read keeps the last settings. */
export async function watchMapping(watch: MappingWatch): Promise<void> {
  while (!watch.signal.aborted) {
    await pause(watch.everyMs, watch.signal);
    if (watch.signal.aborted) return;
    try {
      watch.onRead(await readMapping(watch.lambda, watch.uuid, watch.fallback, watch.signal));
    } catch (error) {
      if (!watch.signal.aborted)
        watch.onError(`reading mapping ${watch.uuid} failed: ${(error as Error).message}`);
    }
  }
}
