/**
 * consumer/create-consumer.ts, the composition root: what it decides from the environment before
 * any record is worked on. The execution environment's id (recorded on every attempt it starts,
 * rules 5 and 6), its logger's service, and the alarm that gives up a declared call left
 * unanswered (work-context.ts). The batch is replaced by a recorder of the dependencies it is
 * handed; the SDK clients are built but never called. Mutation testing found these unpinned
 * (issue 19).
 */
import { setTimeout as wait } from 'node:timers/promises';
import type { Context, SelfManagedKafkaEvent, SQSEvent } from 'aws-lambda';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createConsumer } from '../../lambdas/consumer/create-consumer';
import type { ConsumerDeps } from '../../lambdas/consumer/deps';
import { RecordsHeldError } from '../../lambdas/sources/kafka';
import { kafkaWorldEnvironment, worldEnvironment } from '../../sim/world/world';

const handed = vi.hoisted(() => ({ deps: [] as unknown[], records: [] as unknown[], stay: [] as unknown[] }));

vi.mock('../../lambdas/consumer/batch', () => ({
  handleBatch: async (deps: unknown, _state: unknown, records: unknown[]) => {
    handed.deps.push(deps);
    handed.records.push(records);
    return handed.stay;
  },
}));

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

/** The dependencies a cold start hands its batches, from `env` and no logger of the caller's. */
async function coldStart(
  env: Record<string, string>,
  event: SQSEvent | SelfManagedKafkaEvent = { Records: [] },
): Promise<ConsumerDeps> {
  const handler = createConsumer({
    processor: { process: async () => undefined },
    env,
    clientOptions: {
      endpoint: 'http://127.0.0.1:9',
      region: 'eu-west-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    },
  });
  await handler(event, {
    awsRequestId: 'req-1',
    functionName: 'consumer',
    getRemainingTimeInMillis: () => 10_000,
  } as Context);
  return handed.deps.at(-1) as ConsumerDeps;
}

/** Timers that keep the process alive (an unref'd one is not listed). */
function refTimers(): number {
  return process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
}

beforeEach(() => {
  handed.deps.length = 0;
  handed.records.length = 0;
  handed.stay = [];
});

describe("the execution environment's id", () => {
  it('given AWS_LAMBDA_FUNCTION_NAME, then the id is the function name and a fresh uuid', async () => {
    // Prepare
    const env = worldEnvironment({ AWS_LAMBDA_FUNCTION_NAME: 'orders-consumer' });

    // Act
    const deps = await coldStart(env);

    // Assess
    expect(deps.envId).toMatch(new RegExp(`^orders-consumer:${UUID}$`));
  });

  it('given no AWS_LAMBDA_FUNCTION_NAME (a local run), then the id is local and a uuid of its own per cold start', async () => {
    // Prepare
    const env = worldEnvironment();

    // Act
    const first = await coldStart(env);
    const second = await coldStart(env);

    // Assess
    expect(first.envId).toMatch(new RegExp(`^local:${UUID}$`));
    expect(second.envId).toMatch(new RegExp(`^local:${UUID}$`));
    expect(second.envId).not.toBe(first.envId);
  });
});

describe("the consumer's own logger", () => {
  it('given no logger, then its lines name the service poison-quarantine', async () => {
    // Prepare
    const deps = await coldStart(worldEnvironment());
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);

    // Act
    let lines: Record<string, unknown>[];
    try {
      deps.logger.info('cold start', { event: 'test-line' });
      lines = write.mock.calls.map(([chunk]) => JSON.parse(String(chunk)) as Record<string, unknown>);
    } finally {
      write.mockRestore();
    }

    // Assess
    expect(lines).toMatchObject([
      { message: 'cold start', event: 'test-line', service: 'poison-quarantine' },
    ]);
  });
});

describe('the alarm that gives up an unanswered call', () => {
  it('given an alarm not aborted, then it resolves after its time', async () => {
    // Prepare
    const deps = await coldStart(worldEnvironment());
    const startedAt = Date.now();

    // Act
    await deps.alarm(30, new AbortController().signal);

    // Assess: timers may fire a millisecond early.
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(29);
  });

  it('given the call answered first (the signal aborts), then the alarm never settles', async () => {
    // Prepare
    const deps = await coldStart(worldEnvironment());
    const answered = new AbortController();
    let settled = false;
    void deps.alarm(20, answered.signal).then(
      () => {
        settled = true;
      },
      () => {
        settled = true;
      },
    );

    // Act
    answered.abort();
    await wait(100);

    // Assess
    expect(settled).toBe(false);
  });

  it('given an alarm pending, then it keeps no timer that holds the process alive, and none once aborted', async () => {
    // Prepare
    const deps = await coldStart(worldEnvironment());
    const before = refTimers();
    const answered = new AbortController();

    // Act
    void deps.alarm(60_000, answered.signal);
    const pending = refTimers();
    answered.abort();
    await wait(0);
    const aborted = refTimers();

    // Assess
    expect({ pending, aborted }).toStrictEqual({ pending: before, aborted: before });
  });
});

describe('the source the consumer reads (issue 38)', () => {
  const kafkaEvent: SelfManagedKafkaEvent = {
    eventSource: 'SelfManagedKafka',
    bootstrapServers: '127.0.0.1:9092',
    records: {
      'orders-0': [
        {
          topic: 'orders',
          partition: 0,
          offset: 4,
          timestamp: 1,
          timestampType: 'CREATE_TIME',
          key: '',
          value: Buffer.from('{}').toString('base64'),
          headers: [],
        },
      ],
    },
  };

  it('given a Kafka source, then its event becomes records keyed topic-partition-offset', async () => {
    // Act
    await coldStart(kafkaWorldEnvironment(), kafkaEvent);

    // Assess
    expect(handed.records.at(-1)).toMatchObject([{ messageId: 'orders-0-4', orderGroup: 'orders-0' }]);
  });

  it('given a Kafka source, then records are handed back through the partition, never through a queue', async () => {
    // Prepare: the SQS port would connect to 127.0.0.1:9 and fail.
    const deps = await coldStart(kafkaWorldEnvironment(), kafkaEvent);

    // Act + Assess
    await expect(deps.queue.delay('orders-0-4', 5)).resolves.toBeUndefined();
    await expect(deps.queue.acknowledge('orders-0-4')).resolves.toBeUndefined();
  });

  it('given a Kafka source and a record that stays, then the invocation fails so the mapping delivers it again', async () => {
    // Prepare
    const handler = createConsumer({
      processor: { process: async () => undefined },
      env: kafkaWorldEnvironment(),
    });
    handed.stay = [{ messageId: 'orders-0-4' }];

    // Act
    const answer = handler(kafkaEvent, { getRemainingTimeInMillis: () => 10_000 } as Context);

    // Assess
    await expect(answer).rejects.toThrow(RecordsHeldError);
  });

  it('given an SQS source, then records are handed back through the queue', async () => {
    // Prepare
    const deps = await coldStart(worldEnvironment());

    // Act + Assess: the queue at 127.0.0.1:9 cannot be reached.
    await expect(deps.queue.delay('receipt-1', 5)).rejects.toThrow();
  });
});
