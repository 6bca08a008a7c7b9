/**
 * Record factories for the unit tests: a valid default, overridden field by field.
 */
import { defaultPolicy, type LedgerItem, type Policy } from '../../lambdas/core/types';

export function aPolicy(overrides: Partial<Policy> = {}): Policy {
  return { ...defaultPolicy(), ...overrides };
}

export function aLedgerItem(overrides: Partial<LedgerItem> = {}): LedgerItem {
  return {
    key: 'order-17',
    state: 'in-flight',
    attempts: 1,
    charged: 0,
    transientFailures: 0,
    unknownFailures: 0,
    generation: 0,
    attemptId: 'attempt-1',
    envId: 'env-a',
    messageId: '059f36b4-87a3-44ab-83d2-661975830a7d',
    stage: 'started',
    firstAttemptAt: '2025-01-01T00:00:00.000Z',
    lastAttemptAt: '2025-01-01T00:00:00.000Z',
    ...overrides,
  };
}

/** An Error with a fixed stack, so evidence and signatures are deterministic. */
export function errorWithStack(name: string, message: string, frames: readonly string[]): Error {
  const error = new Error(message);
  error.name = name;
  error.stack = [`${name}: ${message}`, ...frames.map((frame) => `    ${frame}`)].join('\n');
  return error;
}

/**
 * A thrown value that throws on every property read. Built per test: vitest formats `it.each`
 * arguments, which would read it.
 */
export function hostileValue(): object {
  return new Proxy(
    {},
    {
      get() {
        throw new Error('no reads');
      },
    },
  );
}
