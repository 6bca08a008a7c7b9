/**
 * The real adapters over the local AWS, for the port contract: one moto with the construct's
 * template deployed (support/pipeline.ts), so the tables carry the real key schemas and indexes.
 * The control and quarantine tables hold singletons and table-wide counts (the breaker, the
 * failure window, open records), so every case gets its own copy of them, created from the
 * deployed table's description; the attempts table and the bucket are shared (keys are unique).
 */
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DeleteItemCommand,
  DescribeTableCommand,
  GetItemCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import {
  CreateStateMachineCommand,
  DescribeExecutionCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { OPEN_RECORDS_COUNTER } from '../../../contract/quarantine';
import { AttemptLedger } from '../../../lambdas/adapters/attempt-ledger';
import { ControlState } from '../../../lambdas/adapters/control-state';
import { COUNTER_KEY } from '../../../lambdas/adapters/open-records';
import { Operations } from '../../../lambdas/adapters/operations';
import { OperatorControlState } from '../../../lambdas/adapters/operator-control-state';
import { OperatorLedger } from '../../../lambdas/adapters/operator-ledger';
import { QuarantineRecords } from '../../../lambdas/adapters/quarantine-reader';
import { QuarantineWriter, quarantineObjectKeys } from '../../../lambdas/adapters/quarantine-writer';
import { SourceQueue } from '../../../lambdas/adapters/source-queue';
import type { BreakerRecord } from '../../../lambdas/core/breaker';
import { type AdapterPipeline, startPipeline } from './pipeline';
import type { Arrange, PortsUnderTest, PortsWorld } from './ports-worlds';

type Item = Record<string, { S?: string; N?: string; BOOL?: boolean }>;

/**
 * The operations port's contract is Step Functions' naming rule, not what the deployed machine
 * does next: its first steps are conditional writes that end an execution within milliseconds
 * when the case arranged no record or breaker, which would make "still running" a race. So the
 * executions run a machine that only waits, standing in for both deployed machines; their own
 * paths are covered by adapters-operations and operations-*.test.ts.
 */
const WAITING_MACHINE = {
  StartAt: 'Wait',
  States: { Wait: { Type: 'Wait', Seconds: 3600, End: true } },
};

export function motoWorld(): PortsWorld {
  let pipeline: AdapterPipeline | undefined;
  let controlShape: CreateTableCommandInput;
  let quarantineShape: CreateTableCommandInput;
  let stateMachineArn: string;
  let cases = 0;

  const running = () => {
    if (pipeline === undefined) throw new Error('the local AWS is not started: call setUp first');
    return pipeline;
  };

  return {
    name: 'adapters over the local AWS',
    departures: {
      'stale-receipt-handle':
        'moto 5.2 changes the visibility for any handle the message ever had (sqs/models.py ' +
        '`had_receipt_handle`); SQS refuses a handle replaced by a later receive.',
      'visible-message-handle':
        'moto 5.2 changes the visibility of a message that is not in flight; SQS answers MessageNotInflight.',
    },
    async setUp() {
      pipeline = await startPipeline();
      controlShape = await shapeOf(pipeline, pipeline.names.controlTable);
      quarantineShape = await shapeOf(pipeline, pipeline.names.quarantineTable);
      const machine = await pipeline.clients.sfn.send(
        new CreateStateMachineCommand({
          name: 'ports-contract-wait',
          roleArn: 'arn:aws:iam::123456789012:role/ports-contract-wait',
          definition: JSON.stringify(WAITING_MACHINE),
        }),
      );
      stateMachineArn = String(machine.stateMachineArn);
    },
    async tearDown() {
      await pipeline?.stop();
    },
    async fresh(): Promise<PortsUnderTest> {
      const aws = running();
      const { dynamodb, s3, sqs, sfn } = aws.clients;
      const n = ++cases;
      const controlTable = `ports-control-${n}`;
      const quarantineTable = `ports-quarantine-${n}`;
      const [, , created] = await Promise.all([
        dynamodb.send(new CreateTableCommand({ ...controlShape, TableName: controlTable })),
        dynamodb.send(new CreateTableCommand({ ...quarantineShape, TableName: quarantineTable })),
        sqs.send(new CreateQueueCommand({ QueueName: `ports-contract-${n}` })),
      ]);
      const queueUrl = String(created.QueueUrl);
      const { attemptsTable, quarantineBucket } = aws.names;
      const breakerKey = { pk: { S: 'breaker' }, sk: { S: 'state' } };

      const arrange: Arrange = {
        async putBreaker(record) {
          await dynamodb.send(
            new PutItemCommand({ TableName: controlTable, Item: { ...breakerKey, ...breakerItem(record) } }),
          );
        },
        async putGarbledBreaker(item) {
          await dynamodb.send(new PutItemCommand({ TableName: controlTable, Item: item }));
        },
        async probeCounts() {
          const { Item } = await dynamodb.send(
            new GetItemCommand({ TableName: controlTable, Key: breakerKey, ConsistentRead: true }),
          );
          return {
            successes: Number(Item?.probeSuccesses?.N ?? 0),
            failures: Number(Item?.probeFailures?.N ?? 0),
            repeated: Number(Item?.probeRepeatFailures?.N ?? 0),
            own: Number(Item?.probeOwnFailures?.N ?? 0),
          };
        },
        async freezeReplay() {
          const control = new OperatorControlState(dynamodb, controlTable);
          await control.setReplayFreeze({ frozen: true, who: 'alice', why: 'contract', now: new Date() });
        },
        async contentOf(id) {
          const keys = quarantineObjectKeys(id);
          const read = async (key: string) => {
            try {
              const object = await s3.send(new GetObjectCommand({ Bucket: quarantineBucket, Key: key }));
              return await object.Body?.transformToString('utf8');
            } catch {
              return undefined;
            }
          };
          const [body, envelope] = await Promise.all([read(keys.bodyKey), read(keys.envelopeKey)]);
          return body === undefined || envelope === undefined ? undefined : { body, envelope };
        },
        async recordOf(id) {
          const { Item } = await dynamodb.send(
            new GetItemCommand({ TableName: quarantineTable, Key: { id: { S: id } }, ConsistentRead: true }),
          );
          return Item && { status: String(Item.status?.S), messageId: String(Item.messageId?.S) };
        },
        async setRecordStatus(id, status) {
          const records = new QuarantineRecords(s3, dynamodb, quarantineBucket, quarantineTable);
          await records.setStatus(id, status, { who: 'operator', when: new Date(), why: 'contract' });
        },
        async openRecordCount() {
          const { Item } = await dynamodb.send(
            new GetItemCommand({ TableName: quarantineTable, Key: COUNTER_KEY, ConsistentRead: true }),
          );
          const count = Item?.[OPEN_RECORDS_COUNTER.attributes.count]?.N;
          return count === undefined ? undefined : Number(count);
        },
        async removeOpenRecordCount() {
          await dynamodb.send(new DeleteItemCommand({ TableName: quarantineTable, Key: COUNTER_KEY }));
        },
        async finishExecution(executionArn) {
          await stopExecution(aws, executionArn);
          for (let tries = 0; tries < 50; tries++) {
            const { status } = await sfn.send(new DescribeExecutionCommand({ executionArn }));
            if (status !== 'RUNNING') return;
            await sleep(100);
          }
          throw new Error(`${executionArn} still running`);
        },
        async sendMessage(body) {
          await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
        },
        async receive(visibilitySeconds) {
          const { Messages } = await sqs.send(
            new ReceiveMessageCommand({
              QueueUrl: queueUrl,
              MaxNumberOfMessages: 1,
              VisibilityTimeout: visibilitySeconds,
              WaitTimeSeconds: 0,
            }),
          );
          return Messages?.[0]?.ReceiptHandle;
        },
        async deleteMessage(receiptHandle) {
          await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: receiptHandle }));
        },
      };
      const operatorLedger = new OperatorLedger(dynamodb, attemptsTable);
      return {
        // The consumer's side, with the operator's reset a replay start depends on.
        ledger: Object.assign(new AttemptLedger(dynamodb, attemptsTable), {
          resetForReplay: (...reset: Parameters<OperatorLedger['resetForReplay']>) =>
            operatorLedger.resetForReplay(...reset),
        }),
        control: new ControlState(dynamodb, controlTable),
        quarantine: new QuarantineWriter(s3, dynamodb, quarantineBucket, quarantineTable),
        operations: new Operations(sfn, { pause: stateMachineArn, verification: stateMachineArn }),
        queue: new SourceQueue(sqs, queueUrl),
        arrange,
      };
    },
  };
}

/** What CreateTable needs to make another table like the deployed one: keys and indexes. */
async function shapeOf(pipeline: AdapterPipeline, tableName: string): Promise<CreateTableCommandInput> {
  const { Table } = await pipeline.clients.dynamodb.send(new DescribeTableCommand({ TableName: tableName }));
  if (Table === undefined) throw new Error(`table ${tableName} not deployed`);
  const indexes = (Table.GlobalSecondaryIndexes ?? []).map((index) => ({
    IndexName: index.IndexName,
    KeySchema: index.KeySchema,
    Projection: index.Projection,
  }));
  return {
    TableName: tableName,
    KeySchema: Table.KeySchema,
    AttributeDefinitions: Table.AttributeDefinitions,
    BillingMode: 'PAY_PER_REQUEST',
    ...(indexes.length === 0 ? {} : { GlobalSecondaryIndexes: indexes }),
  };
}

/** The breaker item as the pause state machine writes it (control-items.ts reads it back). */
function breakerItem(record: BreakerRecord): Item {
  return {
    state: { S: record.state },
    epoch: { N: String(record.epoch) },
    cooldownSeconds: { N: String(record.cooldownSeconds) },
    stop: { BOOL: record.stop },
    ...(record.state === 'closed'
      ? {}
      : { reason: { S: record.reason }, openedAt: { N: String(record.openedAt) } }),
  };
}

/** moto answers a StopExecution sent within ~200 ms of the start with an HTTP 500: retried briefly. */
async function stopExecution(pipeline: AdapterPipeline, executionArn: string): Promise<void> {
  for (let tries = 1; ; tries++) {
    try {
      await pipeline.clients.sfn.send(new StopExecutionCommand({ executionArn }));
      return;
    } catch (error) {
      if (tries === 20) throw error;
      await sleep(100);
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
