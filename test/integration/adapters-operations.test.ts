/**
 * Operations (Step Functions) and SourceQueue (SQS) against the deployed state machines and
 * source queue in moto: one execution per record or pause, each on its own machine, the
 * operator's answer reaching a waiting task, and replays that keep the body and attributes and
 * say what they replay.
 */
import { randomUUID } from 'node:crypto';
import {
  CreateStateMachineCommand,
  DescribeExecutionCommand,
  type DescribeExecutionCommandOutput,
  ListExecutionsCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_PAUSE_RUNS, OPERATOR_PAUSE_RUNS, Operations } from '../../lambdas/adapters/operations';
import { QuarantineRecords } from '../../lambdas/adapters/quarantine-reader';
import { QuarantineWriter, quarantineObjectKeys } from '../../lambdas/adapters/quarantine-writer';
import { MESSAGE_KEY_ATTRIBUTE, REPLAY_OF_ATTRIBUTE, SourceQueue } from '../../lambdas/adapters/source-queue';
import type { NewQuarantineRecord } from '../../lambdas/core/quarantine-record';
import {
  OperationsUnavailableError,
  SourceQueueError,
  TaskTokenRejectedError,
} from '../../lambdas/ports/errors';
import { type AdapterPipeline, startPipeline } from './support/pipeline';

let pipeline: AdapterPipeline;
let operations: Operations;
/** Operations over a pause machine whose runs stay alive until stopped (see beforeAll). */
let holding: Operations;
let holdingPause: string;
let writer: QuarantineWriter;
let records: QuarantineRecords;

beforeAll(async () => {
  pipeline = await startPipeline();
  operations = new Operations(pipeline.clients.sfn, pipeline.names.stateMachines);
  const { s3, dynamodb } = pipeline.clients;
  const { quarantineBucket, quarantineTable } = pipeline.names;
  writer = new QuarantineWriter(s3, dynamodb, quarantineBucket, quarantineTable);
  records = new QuarantineRecords(s3, dynamodb, quarantineBucket, quarantineTable);
  // A deployed pause run for an epoch nobody tripped fails by itself within a second or two
  // (BreakerNotTripped), on moto's clock: a test that needs a run still alive when it starts the
  // next would race it. This machine only waits, so a run ends when the test stops it.
  const { stateMachineArn } = await pipeline.clients.sfn.send(
    new CreateStateMachineCommand({
      name: 'adapters-holding-pause',
      roleArn: 'arn:aws:iam::123456789012:role/adapters-holding-pause',
      definition: JSON.stringify({
        StartAt: 'Hold',
        States: { Hold: { Type: 'Wait', Seconds: 3600, End: true } },
      }),
    }),
  );
  holdingPause = stateMachineArn as string;
  holding = new Operations(pipeline.clients.sfn, { ...pipeline.names.stateMachines, pause: holdingPause });
});
afterAll(async () => pipeline?.stop());

/** moto's engine may take many seconds to end an execution on a busy machine: a deadline with margin. */
async function finished(executionArn: string): Promise<DescribeExecutionCommandOutput> {
  const deadline = Date.now() + 45_000;
  while (Date.now() < deadline) {
    const execution = await pipeline.clients.sfn.send(new DescribeExecutionCommand({ executionArn }));
    if (execution.status !== 'RUNNING') return execution;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${executionArn} still running`);
}

/**
 * The deployed machines wait for people and poll the mapping: tests stop what they start.
 * moto answers a StopExecution sent within ~200 ms of the start with an HTML HTTP 500 (its
 * execution thread is not set up yet), so the stop is retried briefly.
 */
async function stop(executionArn: string): Promise<void> {
  for (let tries = 1; ; tries++) {
    try {
      await pipeline.clients.sfn.send(new StopExecutionCommand({ executionArn }));
      return;
    } catch (error) {
      if (tries === 20) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

function newRecord(id: string): NewQuarantineRecord {
  return {
    id,
    status: 'awaiting-operator',
    reason: 'outcome-unknown',
    cause: 'unidentified',
    messageKey: 'order-17',
    messageId: randomUUID(),
    generation: 0,
    attemptsStarted: 1,
    attemptsCharged: 0,
    stage: 'shipping',
    errorSignature: 'crash:shipping',
    firstAttemptAt: '2030-01-01T00:00:00.000Z',
    lastAttemptAt: '2030-01-01T00:00:00.000Z',
    createdAt: '2030-01-01T00:01:00.000Z',
    sourceQueueArn: pipeline.names.sourceQueueArn,
    ...quarantineObjectKeys(id),
    bodyBytes: 1,
    external: { name: 'ship', status: 'pending', at: '2030-01-01T00:00:30.000Z' },
  };
}

async function executionsNamed(stateMachineArn: string, name: string): Promise<number> {
  const { executions } = await pipeline.clients.sfn.send(new ListExecutionsCommand({ stateMachineArn }));
  return (executions ?? []).filter((execution) => execution.name === name).length;
}

async function eventually<T>(read: () => Promise<T | undefined>): Promise<T> {
  for (let tries = 0; tries < 100; tries++) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('nothing arrived');
}

describe('Operations: executions', () => {
  it('starts one outcome-unknown execution per record on the verification machine, which stores its token on the record', async () => {
    // Prepare: the consumer writes the record before it starts the execution.
    const quarantineId = `q-${randomUUID().slice(0, 8)}-g0-a1`;
    await writer.putRecord(newRecord(quarantineId));

    // Act
    const first = await operations.startOutcomeUnknown({ quarantineId, messageKey: 'order-17' });
    const token = await eventually(() => records.taskTokenOf(quarantineId));
    const again = await operations.startOutcomeUnknown({ quarantineId, messageKey: 'order-17' });
    const otherInput = await operations.startOutcomeUnknown({ quarantineId, messageKey: 'order-18' });

    // Assess
    if (!first.started) throw new Error('not started');
    expect(first.executionArn).toMatch(new RegExp(`:execution:[^:]+-verification:ou-${quarantineId}$`));
    expect(again).toStrictEqual(first);
    expect(otherInput).toStrictEqual({ started: false });
    expect(await executionsNamed(pipeline.names.stateMachines.verification, `ou-${quarantineId}`)).toBe(1);
    const execution = await pipeline.clients.sfn.send(
      new DescribeExecutionCommand({ executionArn: first.executionArn }),
    );
    expect(JSON.parse(execution.input ?? '{}')).toStrictEqual({
      kind: 'outcome-unknown',
      quarantineId,
      messageKey: 'order-17',
    });
    expect(token.length).toBeGreaterThan(0);
    expect(await records.get(quarantineId)).toMatchObject({ status: 'awaiting-operator' });
    await stop(first.executionArn);
  });

  it('starts one pause execution per breaker epoch, however often it is asked', async () => {
    const epoch = 1000 + Math.floor(Math.random() * 1_000_000);

    const first = await holding.startPause({ epoch, reason: 'outage', stop: false });
    const again = await holding.startPause({ epoch, reason: 'outage', stop: false });
    const otherInput = await holding.startPause({ epoch, reason: 'quarantine-unwritable', stop: true });

    if (!first.started) throw new Error('not started');
    expect(first.executionArn).toMatch(new RegExp(`:execution:[^:]+-pause:pause-${epoch}$`));
    expect(again).toStrictEqual(first);
    expect(otherInput).toStrictEqual({ started: false });
    expect(await executionsNamed(holdingPause, `pause-${epoch}`)).toBe(1);
    const execution = await pipeline.clients.sfn.send(
      new DescribeExecutionCommand({ executionArn: first.executionArn }),
    );
    expect(JSON.parse(execution.input ?? '{}')).toStrictEqual({
      kind: 'pause',
      reason: 'outage',
      epoch,
      stop: false,
    });
    await stop(first.executionArn);
  });

  it("given the epoch's pause run was stopped, then the next start begins a second run of it", async () => {
    // Prepare: a run that ended without resuming (an operator stopped it, or it failed).
    const epoch = 2_000_000 + Math.floor(Math.random() * 1_000_000);
    const first = await holding.startPause({ epoch, reason: 'outage', stop: false });
    if (!first.started) throw new Error('not started');
    await stop(first.executionArn);
    await finished(first.executionArn);

    // Act
    const second = await holding.startPause({ epoch, reason: 'outage', stop: false });
    const again = await holding.startPause({ epoch, reason: 'outage', stop: false });

    // Assess: a live run again, and only one.
    if (!second.started) throw new Error('no second run');
    expect(second.executionArn).toMatch(new RegExp(`:pause-${epoch}-r2$`));
    expect(again).toStrictEqual(second);
    expect(await executionsNamed(holdingPause, `pause-${epoch}-r2`)).toBe(1);
    await stop(second.executionArn);
  });

  it('given five runs of an epoch ended, then the consumer starts no sixth, the operator does, and every run is listed', async () => {
    // Prepare: five runs that failed or were stopped (a role missing a permission fails each one).
    const epoch = 3_000_000 + Math.floor(Math.random() * 1_000_000);
    const pause = { epoch, reason: 'outage', stop: false };
    for (let run = 1; run <= MAX_PAUSE_RUNS; run++) {
      const started = await operations.startPause(pause);
      if (!started.started) throw new Error(`run ${run} not started`);
      await stop(started.executionArn);
      await finished(started.executionArn);
    }

    // Act
    const byConsumer = await operations.startPause(pause).catch((error: Error) => error);
    const byOperator = await operations.startPause(pause, OPERATOR_PAUSE_RUNS);
    const runs = await operations.pauseRuns(epoch);

    // Assess: the consumer leaves it to the alarms; the person who fixed the cause can go on.
    expect(byConsumer).toBeInstanceOf(OperationsUnavailableError);
    expect((byConsumer as Error).message).toContain(
      `${MAX_PAUSE_RUNS} runs of pause ${epoch} ended without resuming`,
    );
    if (!byOperator.started) throw new Error('the operator started no run');
    expect(byOperator.executionArn).toMatch(new RegExp(`:pause-${epoch}-r6$`));
    // Every run is listed, the operator's after the five that ended (stopped, or failed first by
    // themselves: no breaker was tripped for this epoch). The operator's run fails by itself too,
    // sooner or later, so its status is not judged here.
    expect(runs.map((run) => run.name)).toStrictEqual([
      `pause-${epoch}`,
      ...Array.from({ length: MAX_PAUSE_RUNS }, (_, index) => `pause-${epoch}-r${index + 2}`),
    ]);
    for (const run of runs.slice(0, MAX_PAUSE_RUNS)) expect(['ABORTED', 'FAILED']).toContain(run.status);
    const operatorRun = await pipeline.clients.sfn.send(
      new DescribeExecutionCommand({ executionArn: byOperator.executionArn }),
    );
    if (operatorRun.status === 'RUNNING') await stop(byOperator.executionArn);
  });

  it('turns a refused start into OperationsUnavailableError', async () => {
    const missing = new Operations(pipeline.clients.sfn, {
      ...pipeline.names.stateMachines,
      pause: pipeline.names.stateMachines.pause.replace(/:stateMachine:.*/, ':stateMachine:no-such-machine'),
    });

    await expect(missing.startPause({ epoch: 1, reason: 'outage', stop: true })).rejects.toBeInstanceOf(
      OperationsUnavailableError,
    );
  });
});

describe('Operations: answering an operator wait', () => {
  let waiting: Operations;

  beforeAll(async () => {
    // A bare wait, as the deployed verification machine holds one (the task stores its own token
    // on the record through aws-sdk:dynamodb:updateItem.waitForTaskToken), so that what
    // SendTaskSuccess and SendTaskFailure carry is checked apart from the machine's decision protocol.
    const { stateMachineArn } = await pipeline.clients.sfn.send(
      new CreateStateMachineCommand({
        name: 'adapters-operator-wait',
        roleArn: 'arn:aws:iam::123456789012:role/adapters-operator-wait',
        definition: JSON.stringify({
          StartAt: 'AwaitOperator',
          States: {
            AwaitOperator: {
              Type: 'Task',
              Resource: 'arn:aws:states:::aws-sdk:dynamodb:updateItem.waitForTaskToken',
              Parameters: {
                TableName: pipeline.names.quarantineTable,
                Key: { id: { 'S.$': '$.quarantineId' } },
                UpdateExpression: 'SET taskToken = :token',
                ExpressionAttributeValues: { ':token': { 'S.$': '$$.Task.Token' } },
              },
              HeartbeatSeconds: 3600,
              TimeoutSeconds: 86_400,
              End: true,
            },
          },
        }),
      }),
    );
    const bareWait = stateMachineArn as string;
    waiting = new Operations(pipeline.clients.sfn, { pause: bareWait, verification: bareWait });
    const { s3, dynamodb } = pipeline.clients;
    records = new QuarantineRecords(
      s3,
      dynamodb,
      pipeline.names.quarantineBucket,
      pipeline.names.quarantineTable,
    );
  });

  async function startWait() {
    const quarantineId = `q-wait-${randomUUID().slice(0, 8)}`;
    const started = await waiting.startOutcomeUnknown({ quarantineId, messageKey: 'k' });
    if (!started.started) throw new Error('not started');
    const token = await eventually(() => records.taskTokenOf(quarantineId));
    return { executionArn: started.executionArn, token };
  }

  it('sends the decision as the waiting task’s output', async () => {
    const { executionArn, token } = await startWait();

    await operations.sendDecision(token, { decision: 'done', who: 'erin' });

    const execution = await finished(executionArn);
    expect(execution.status).toBe('SUCCEEDED');
    expect(JSON.parse(execution.output ?? '{}')).toStrictEqual({ decision: 'done', who: 'erin' });
  });

  it('sends a failure with its error and cause', async () => {
    const { executionArn, token } = await startWait();

    await operations.sendFailure(token, 'Discarded', 'the operator discarded the record');

    const execution = await finished(executionArn);
    expect(execution.status).toBe('FAILED');
    expect(execution.error).toBe('Discarded');
  });

  it('refuses a token that is not a live wait, without repeating the token', async () => {
    const token = 'not-a-real-token-SECRET';

    const sent = operations.sendDecision(token, { decision: 'done' });

    await expect(sent).rejects.toBeInstanceOf(TaskTokenRejectedError);
    const error = await sent.catch((rejection: Error) => rejection);
    expect(`${(error as Error).message} ${String((error as Error).cause)}`).not.toContain('SECRET');
  });
});

describe('SourceQueue', () => {
  let queue: SourceQueue;
  /** A queue of its own per test (moto allows one PurgeQueue a minute, as SQS does). */
  let queueUrl: string;
  beforeEach(async () => {
    const { QueueUrl } = await pipeline.clients.sqs.send(
      new CreateQueueCommand({ QueueName: `adapters-${randomUUID().slice(0, 8)}` }),
    );
    queueUrl = QueueUrl as string;
    queue = new SourceQueue(pipeline.clients.sqs, queueUrl);
  });

  async function receive(url = queueUrl) {
    const { Messages } = await pipeline.clients.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: url,
        MaxNumberOfMessages: 10,
        MessageAttributeNames: ['All'],
        WaitTimeSeconds: 1,
      }),
    );
    return Messages ?? [];
  }

  it('replays into the deployed source queue: the body exactly, its attributes, pq-replay-of and pq-message-key', async () => {
    const body = 'Grüße 😀 {"not": json';
    const source = new SourceQueue(pipeline.clients.sqs, pipeline.names.sourceQueueUrl);

    await source.replay({
      body,
      messageAttributes: {
        tenant: { dataType: 'String', stringValue: 'acme' },
        amount: { dataType: 'Number', stringValue: '12.5' },
        blob: { dataType: 'Binary', binaryValue: Buffer.from([0, 1, 254, 255]).toString('base64') },
        [REPLAY_OF_ATTRIBUTE]: { dataType: 'String', stringValue: 'q-older' },
        [MESSAGE_KEY_ATTRIBUTE]: { dataType: 'String', stringValue: 'older-key' },
      },
      replayOf: 'q-0123456789abcdef-g0-a3',
      messageKey: 'order-17',
    });

    const [message] = await receive(pipeline.names.sourceQueueUrl);
    expect(message.Body).toBe(body);
    expect(message.MessageAttributes).toStrictEqual({
      tenant: { DataType: 'String', StringValue: 'acme' },
      amount: { DataType: 'Number', StringValue: '12.5' },
      blob: { DataType: 'Binary', BinaryValue: new Uint8Array([0, 1, 254, 255]) },
      [REPLAY_OF_ATTRIBUTE]: { DataType: 'String', StringValue: 'q-0123456789abcdef-g0-a3' },
      [MESSAGE_KEY_ATTRIBUTE]: { DataType: 'String', StringValue: 'order-17' },
    });
  });

  it('replays once into a FIFO queue however often one replay sends (deduplication by the replay id)', async () => {
    const { QueueUrl } = await pipeline.clients.sqs.send(
      new CreateQueueCommand({
        QueueName: `adapters-replay-${randomUUID().slice(0, 8)}.fifo`,
        Attributes: { FifoQueue: 'true' },
      }),
    );
    const fifo = new SourceQueue(pipeline.clients.sqs, QueueUrl as string);
    const replay = {
      body: 'same body',
      messageAttributes: {},
      messageGroupId: 'g-1',
      deduplicationId: 'replay-1',
      replayOf: 'q-fifo-g0-a3',
      messageKey: 'fifo-key',
    };

    await fifo.replay(replay);
    await fifo.replay(replay);

    const messages = await receive(QueueUrl);
    expect(messages.map((message) => message.Body)).toStrictEqual(['same body']);
  });

  it('delays a message by changing its visibility, clamped to what SQS accepts after a receive', async () => {
    await pipeline.clients.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'm' }));
    const [message] = await receive();

    // SQS refuses 43200 here: its 12 h run from the receive. The adapter keeps a margin.
    await expect(
      pipeline.clients.sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: queueUrl,
          ReceiptHandle: message.ReceiptHandle,
          VisibilityTimeout: 43_200,
        }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    await queue.delay(message.ReceiptHandle as string, 99_999);
    expect(await queue.depth()).toStrictEqual({ visible: 0, inFlight: 1, delayed: 0 });

    await queue.delay(message.ReceiptHandle as string, -5);
    expect(await queue.depth()).toStrictEqual({ visible: 1, inFlight: 0, delayed: 0 });
  });

  it('reports delayed messages in the depth', async () => {
    await pipeline.clients.sqs.send(
      new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'later', DelaySeconds: 600 }),
    );

    expect(await queue.depth()).toStrictEqual({ visible: 0, inFlight: 0, delayed: 1 });
  });

  it('turns a refused call into SourceQueueError', async () => {
    await expect(queue.delay('not-a-receipt-handle', 10)).rejects.toBeInstanceOf(SourceQueueError);
    const missing = new SourceQueue(pipeline.clients.sqs, `${queueUrl}-missing`);
    await expect(missing.depth()).rejects.toBeInstanceOf(SourceQueueError);
  });
});
