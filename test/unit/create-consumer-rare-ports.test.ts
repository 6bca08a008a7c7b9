/**
 * consumer/create-consumer.ts: the rare ports (quarantine, operations, source queue) are made on
 * their first call (issue 24). When the module that makes one cannot be loaded, the call fails
 * with that port's own error, as an unreachable service would, naming what failed; it is never a
 * bare import error the consumer would not know how to treat. Once made, its client's calls are
 * counted like the DynamoDB client's (call-meter.ts).
 */
import { describe, expect, it, vi } from 'vitest';
import { createConsumer } from '../../lambdas/consumer/create-consumer';
import type { ConsumerPorts } from '../../lambdas/ports/consumer-ports';
import {
  OperationsUnavailableError,
  QuarantineWriteError,
  SourceQueueError,
} from '../../lambdas/ports/errors';
import { worldEnvironment } from '../../sim/world/world';

/** How the mocked connect-* modules behave: fail to load, or make a fake client and adapter. */
const connect = vi.hoisted(() => {
  const state = {
    missing: true,
    /** Each client made, by module, with the names of the steps added to its middleware stack. */
    steps: new Map<string, string[]>(),
  };
  const module = (chunk: string) => () => {
    if (state.missing) throw new Error(`${chunk} is missing from the bundle`);
    const steps: string[] = [];
    state.steps.set(chunk, steps);
    const client = {
      middlewareStack: { add: (_step: unknown, options: { name: string }) => steps.push(options.name) },
    };
    const answer = async () => 'answered';
    const adapter = { openRecordsAtLeast: answer, startOutcomeUnknown: answer, delay: answer };
    return { client, adapter };
  };
  return { state, module };
});

vi.mock('../../lambdas/adapters/connect-quarantine', () => ({
  connectQuarantine: connect.module('connect-quarantine'),
}));
vi.mock('../../lambdas/adapters/connect-operations', () => ({
  connectOperations: connect.module('connect-operations'),
}));
vi.mock('../../lambdas/adapters/connect-source-queue', () => ({
  connectSourceQueue: connect.module('connect-source-queue'),
}));

/** The ports a cold start made, as the fault injector's hook sees them; nothing is called yet. */
function portsOfColdStart(): ConsumerPorts {
  let made: ConsumerPorts | undefined;
  createConsumer({
    processor: { process: async () => undefined },
    env: worldEnvironment(),
    clientOptions: { endpoint: 'http://127.0.0.1:9', region: 'eu-west-1' },
    wrapPorts: (ports) => {
      made = ports;
      return ports;
    },
  });
  if (made === undefined) throw new Error('createConsumer handed no ports to wrapPorts');
  return made;
}

describe('a rare port whose module cannot be loaded', () => {
  it.each([
    [
      'quarantine',
      (ports: ConsumerPorts) => ports.quarantine.openRecordsAtLeast(10),
      QuarantineWriteError,
      'the quarantine adapter could not be loaded',
      'connect-quarantine is missing from the bundle',
    ],
    [
      'operations',
      (ports: ConsumerPorts) =>
        ports.operations.startOutcomeUnknown({ quarantineId: 'q-1', messageKey: 'k-1' }),
      OperationsUnavailableError,
      'the state machines adapter could not be loaded',
      'connect-operations is missing from the bundle',
    ],
    [
      'queue',
      (ports: ConsumerPorts) => ports.queue.delay('receipt-1', 5),
      SourceQueueError,
      'the source queue adapter could not be loaded',
      'connect-source-queue is missing from the bundle',
    ],
  ] as const)(
    'given the %s port, then its call fails with its own error naming the cause',
    async (_port, call, errorClass, message, cause) => {
      // Prepare
      const ports = portsOfColdStart();
      // Act
      const failure = await call(ports).catch((error: unknown) => error);
      // Assess
      expect(failure).toBeInstanceOf(errorClass);
      expect(failure).toMatchObject({ message, cause: { message: cause } });
    },
  );
});

describe('a rare port once loaded', () => {
  it.each([
    ['connect-quarantine', (ports: ConsumerPorts) => ports.quarantine.openRecordsAtLeast(10)],
    [
      'connect-operations',
      (ports: ConsumerPorts) =>
        ports.operations.startOutcomeUnknown({ quarantineId: 'q-1', messageKey: 'k-1' }),
    ],
    ['connect-source-queue', (ports: ConsumerPorts) => ports.queue.delay('receipt-1', 5)],
  ] as const)(
    'given the first call through %s, then its client carries the call meter, as the DynamoDB client does',
    async (chunk, call) => {
      // Prepare
      connect.state.missing = false;
      connect.state.steps.clear();
      const ports = portsOfColdStart();
      // Act
      const answer = await call(ports);
      // Assess: the client's calls count toward each record's (CallMeter), once.
      expect(answer).toBe('answered');
      expect(connect.state.steps.get(chunk)).toEqual(['poisonQuarantineCallMeter']);
    },
  );
});
