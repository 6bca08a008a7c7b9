/**
 * The environment each timed handler runs with, as its function would have it: the consumer's
 * variables (contract/env.ts names, as the construct sets them), the reference's table, and for
 * both the source-map switch the construct sets (same for all, so it costs all the same).
 */
import { worldEnvironment } from '../../sim/world/world';
import type { HandlerName } from './bundles';

const SHARED = {
  PATH: process.env.PATH ?? '',
  AWS_REGION: 'us-east-1',
  NODE_OPTIONS: '--enable-source-maps',
};

const OWN: Record<HandlerName, Record<string, string>> = {
  poisonQuarantine: { ...worldEnvironment(), AWS_LAMBDA_FUNCTION_NAME: 'bench-consumer' },
  powertools: { IDEMPOTENCY_TABLE: 'idempotency', AWS_LAMBDA_FUNCTION_NAME: 'bench-powertools' },
  bare: { AWS_LAMBDA_FUNCTION_NAME: 'bench-bare' },
};

/** `extra` points the SDK somewhere (an endpoint, credentials) for a handler that makes calls. */
export function handlerEnvironment(name: HandlerName, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...SHARED, ...OWN[name], ...extra };
}
