/**
 * The environment each timed handler runs with, as its function would have it: the consumer's
 * variables (contract/env.ts names, as the construct sets them), the reference's table, and how
 * each gets readable stack traces.
 */
import { worldEnvironment } from '../../sim/world/world';
import type { HandlerName } from './bundles';

const SHARED = {
  PATH: process.env.PATH ?? '',
  AWS_REGION: 'us-east-1',
};

/**
 * Readable stack traces for all: the consumer maps its own on the first failure, as the construct
 * deploys it (no NODE_OPTIONS); a NodejsFunction's user gets them from Node's flag, which the
 * reference and the bare handler run with.
 */
const NODE_SOURCE_MAPS = { NODE_OPTIONS: '--enable-source-maps' };

const OWN: Record<HandlerName, Record<string, string>> = {
  poisonQuarantine: { ...worldEnvironment(), AWS_LAMBDA_FUNCTION_NAME: 'bench-consumer' },
  powertools: {
    ...NODE_SOURCE_MAPS,
    IDEMPOTENCY_TABLE: 'idempotency',
    AWS_LAMBDA_FUNCTION_NAME: 'bench-powertools',
  },
  bare: { ...NODE_SOURCE_MAPS, AWS_LAMBDA_FUNCTION_NAME: 'bench-bare' },
};

/** `extra` points the SDK somewhere (an endpoint, credentials) for a handler that makes calls. */
export function handlerEnvironment(name: HandlerName, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...SHARED, ...OWN[name], ...extra };
}
