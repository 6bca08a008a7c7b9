/**
 * Reads the local AWS state a rehearsal is judged by, through the project's own adapters where
 * they exist (the operator's read path), so the figures come from the ledger, the quarantine and
 * the queue themselves, never from what the consumer says about them.
 */
import { type AttributeValue, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { ListExecutionsCommand } from '@aws-sdk/client-sfn';
import {
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { ENV } from '../../contract/env';
import type { QuarantineStatus } from '../../contract/quarantine';
import { ISOLATION_KEY } from '../../lambdas/adapters/control-items';
import { ControlState } from '../../lambdas/adapters/control-state';
import { OperatorLedger } from '../../lambdas/adapters/operator-ledger';
import { QuarantineRecords } from '../../lambdas/adapters/quarantine-reader';
import { SourceQueue, type QueueDepth as SqsDepth } from '../../lambdas/adapters/source-queue';
import type { QuarantineRecord } from '../../lambdas/core/quarantine-record';
import type { ControlSnapshot } from '../../lambdas/ports/control';
import { MalformedItemError } from '../../lambdas/ports/errors';
import type { LedgerEntry } from '../../lambdas/ports/ledger';
import type { LocalPipeline } from '../local-pipeline';

/** Reads of a half-built item (see `ledgerItem`) before giving up. */
const HALF_BUILT_RETRIES = 5;
const STATUSES: readonly QuarantineStatus[] = ['open', 'awaiting-operator', 'resolved', 'replayed'];

export interface QueueDepth extends SqsDepth {
  readonly total: number;
}

/** An execution of an operations state machine: `pause-<epoch>` or `ou-<quarantine id>`. */
export interface ExecutionView {
  readonly name: string;
  readonly status: string;
}

/**
 * The breaker item's state and the times the consumer and the state machine wrote on it, in epoch
 * milliseconds. `halfOpenAt` exists only while the breaker is half-open.
 */
export interface BreakerView {
  readonly state: string;
  readonly epoch?: number;
  readonly openedAt?: number;
  readonly disabledAt?: number;
  readonly halfOpenAt?: number;
  readonly closedAt?: number;
}

/**
 * The isolation trial item as it stands: a trial that ended keeps the start of its last (re)start,
 * while the adapter's view of an ended trial keeps nothing.
 */
export interface IsolationView {
  readonly active: boolean;
  readonly startedAt?: number;
  readonly reason?: string;
}

export class PipelineProbe {
  readonly ledger: OperatorLedger;
  readonly quarantine: QuarantineRecords;
  readonly control: ControlState;
  private readonly queueUrl: string;
  private readonly queue: SourceQueue;
  private readonly controlTable: string;
  /** The pause and the verification state machines. */
  private readonly stateMachineArns: readonly string[];

  constructor(private readonly pipeline: LocalPipeline) {
    const { clients } = pipeline;
    this.ledger = new OperatorLedger(clients.dynamodb, pipeline.env(ENV.attemptsTable));
    this.quarantine = new QuarantineRecords(
      clients.s3,
      clients.dynamodb,
      pipeline.env(ENV.quarantineBucket),
      pipeline.env(ENV.quarantineTable),
    );
    this.controlTable = pipeline.env(ENV.controlTable);
    this.control = new ControlState(clients.dynamodb, this.controlTable);
    this.stateMachineArns = [
      pipeline.env(ENV.pauseStateMachineArn),
      pipeline.env(ENV.verificationStateMachineArn),
    ];
    this.queueUrl = pipeline.env(ENV.sourceQueueUrl);
    this.queue = new SourceQueue(clients.sqs, this.queueUrl);
  }

  /** Sends one message to the source queue; returns its SQS messageId. */
  async send(body: string): Promise<string> {
    const output = await this.pipeline.clients.sqs.send(
      new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: body }),
    );
    if (!output.MessageId) throw new Error('SendMessage returned no MessageId');
    return output.MessageId;
  }

  /** Sends up to 10 messages in one request, so one receive can take them together; ids in order. */
  async sendBatch(bodies: readonly string[]): Promise<string[]> {
    if (bodies.length === 0 || bodies.length > 10)
      throw new Error(`sendBatch takes 1 to 10 bodies (given ${bodies.length})`);
    const output = await this.pipeline.clients.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: this.queueUrl,
        Entries: bodies.map((body, index) => ({ Id: String(index), MessageBody: body })),
      }),
    );
    if (output.Failed?.length) throw new Error(`SendMessageBatch failed: ${JSON.stringify(output.Failed)}`);
    const ids = new Map((output.Successful ?? []).map((entry) => [entry.Id, entry.MessageId]));
    return bodies.map((_, index) => {
      const id = ids.get(String(index));
      if (!id) throw new Error(`SendMessageBatch returned no MessageId for entry ${index}`);
      return id;
    });
  }

  async queueDepth(): Promise<QueueDepth> {
    return withTotal(await this.queue.depth());
  }

  /**
   * The backstop's depth: the dead-letter queue the source queue's RedrivePolicy names, where SQS
   * moves a message at its last receive whatever our ledger says. Found from the queue itself,
   * not from the stack, so the figure is the queue SQS really redrives to.
   */
  async backstopDepth(): Promise<QueueDepth> {
    const { sqs } = this.pipeline.clients;
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: this.queueUrl, AttributeNames: ['RedrivePolicy'] }),
    );
    if (Attributes?.RedrivePolicy === undefined)
      throw new Error(`the source queue ${this.queueUrl} has no RedrivePolicy: no backstop to read`);
    const { deadLetterTargetArn } = JSON.parse(Attributes.RedrivePolicy) as { deadLetterTargetArn: string };
    // arn:aws:sqs:<region>:<account>:<queue name>
    const [, , , , account, name] = deadLetterTargetArn.split(':');
    const { QueueUrl } = await sqs.send(
      new GetQueueUrlCommand({ QueueName: name, QueueOwnerAWSAccountId: account }),
    );
    if (QueueUrl === undefined) throw new Error(`GetQueueUrl returned no URL for ${deadLetterTargetArn}`);
    // SourceQueue's depth reads any queue's three counts.
    return withTotal(await new SourceQueue(sqs, QueueUrl).depth());
  }

  /** The ledger item of each key (strongly consistent reads), undefined where none exists yet. */
  async ledgerItems(keys: readonly string[]): Promise<Map<string, LedgerEntry | undefined>> {
    const items = await Promise.all(keys.map((key) => this.ledgerItem(key)));
    return new Map(keys.map((key, index) => [key, items[index]]));
  }

  /**
   * One ledger item. moto (not DynamoDB) builds a new item in two steps without a lock: the
   * keys first, then the update's attributes, so a read landing in between sees a keys-only
   * item that the adapter rightly calls malformed. Such a read is tried again a few times.
   */
  async ledgerItem(key: string): Promise<LedgerEntry | undefined> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.ledger.get(key);
      } catch (error) {
        if (!(error instanceof MalformedItemError) || attempt >= HALF_BUILT_RETRIES) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  /** Every quarantine record of the pipeline, whatever its status. */
  async quarantineRecords(): Promise<QuarantineRecord[]> {
    const lists = await Promise.all(STATUSES.map((status) => this.quarantine.list({ status })));
    return lists.flat();
  }

  controlSnapshot(): Promise<ControlSnapshot> {
    return this.control.snapshot();
  }

  /** Every execution of both operations state machines, whatever its status. */
  async executions(): Promise<ExecutionView[]> {
    const lists = await Promise.all(this.stateMachineArns.map((arn) => this.executionsOf(arn)));
    return lists.flat();
  }

  private async executionsOf(stateMachineArn: string): Promise<ExecutionView[]> {
    const views: ExecutionView[] = [];
    let nextToken: string | undefined;
    do {
      const page = await this.pipeline.clients.sfn.send(
        new ListExecutionsCommand({ stateMachineArn, nextToken }),
      );
      for (const execution of page.executions ?? []) {
        views.push({ name: execution.name ?? '', status: execution.status ?? 'unknown' });
      }
      nextToken = page.nextToken;
    } while (nextToken !== undefined);
    return views;
  }

  /** The isolation trial item (`undefined`: no trial ever started), read raw for the start it keeps. */
  async isolation(): Promise<IsolationView | undefined> {
    const { Item: item } = await this.pipeline.clients.dynamodb.send(
      new GetItemCommand({ TableName: this.controlTable, Key: ISOLATION_KEY, ConsistentRead: true }),
    );
    if (item === undefined) return undefined;
    const startedAt = epochMs(item.startedAt);
    return {
      active: item.active?.BOOL === true,
      ...(startedAt === undefined ? {} : { startedAt }),
      ...(item.reason?.S === undefined ? {} : { reason: item.reason.S }),
    };
  }

  /** The breaker item (`undefined`: it never tripped). Read raw: the adapter's view keeps no times. */
  async breaker(): Promise<BreakerView | undefined> {
    const { Item: item } = await this.pipeline.clients.dynamodb.send(
      new GetItemCommand({
        TableName: this.controlTable,
        Key: { pk: { S: 'breaker' }, sk: { S: 'state' } },
        ConsistentRead: true,
        // Never the task token a stopped breaker may hold.
        ProjectionExpression: '#state, #epoch, openedAt, disabledAt, halfOpenAt, closedAt',
        ExpressionAttributeNames: { '#state': 'state', '#epoch': 'epoch' },
      }),
    );
    if (item === undefined) return undefined;
    const times = Object.fromEntries(
      (['openedAt', 'disabledAt', 'halfOpenAt', 'closedAt'] as const).flatMap((name) => {
        const value = epochMs(item[name]);
        return value === undefined ? [] : [[name, value]];
      }),
    );
    return {
      state: item.state?.S ?? 'unknown',
      ...(item.epoch?.N === undefined ? {} : { epoch: Number(item.epoch.N) }),
      ...times,
    };
  }
}

function withTotal(depth: SqsDepth): QueueDepth {
  return { ...depth, total: depth.visible + depth.inFlight + depth.delayed };
}

/** A number as the tables keep it: epoch milliseconds (N) or ISO-8601 (S). */
function epochMs(value: AttributeValue | undefined): number | undefined {
  if (value?.N !== undefined) return Number(value.N);
  if (value?.S !== undefined) {
    const parsed = Date.parse(value.S);
    return Number.isFinite(parsed) ? parsed : undefined;
  }
  return undefined;
}

export function isTerminal(item: LedgerEntry | undefined): boolean {
  return item?.state === 'completed' || item?.state === 'quarantined';
}
