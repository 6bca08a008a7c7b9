/**
 * Reads the local AWS state a rehearsal is judged by, through the project's own adapters where
 * they exist (the operator's read path), so the figures come from the ledger, the quarantine and
 * the queue themselves, never from what the consumer says about them.
 */
import { type AttributeValue, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { ListExecutionsCommand } from '@aws-sdk/client-sfn';
import { ENV } from '../../contract/env';
import type { QuarantineStatus } from '../../contract/quarantine';
import { ISOLATION_KEY } from '../../lambdas/adapters/control-items';
import { ControlState } from '../../lambdas/adapters/control-state';
import { OperatorLedger } from '../../lambdas/adapters/operator-ledger';
import { QuarantineRecords } from '../../lambdas/adapters/quarantine-reader';
import type { QuarantineRecord } from '../../lambdas/core/quarantine-record';
import type { ControlSnapshot } from '../../lambdas/ports/control';
import { MalformedItemError } from '../../lambdas/ports/errors';
import type { LedgerEntry } from '../../lambdas/ports/ledger';
import type { ObservedRunner } from '../../tools/local-aws/runner';
import type { LocalPipeline } from '../local-pipeline';
import type { QueueDepth } from '../sources/pipeline-source';

export type { QueueDepth } from '../sources/pipeline-source';

/** Reads of a half-built item (see `ledgerItem`) before giving up. */
const HALF_BUILT_RETRIES = 5;
const STATUSES: readonly QuarantineStatus[] = ['open', 'awaiting-operator', 'resolved', 'replayed'];

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
  private readonly controlTable: string;
  /** The pause and the verification state machines. */
  private readonly stateMachineArns: readonly string[];

  constructor(private readonly pipeline: LocalPipeline<ObservedRunner>) {
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
  }

  /** Puts one message into the source (a Kafka record into `partition`); returns its messageId. */
  send(body: string, partition?: number): Promise<string> {
    return this.pipeline.source.send(body, partition);
  }

  /** Puts up to 10 messages in at once, so one poll can take them together; ids in order. */
  sendBatch(bodies: readonly string[]): Promise<string[]> {
    return this.pipeline.source.sendBatch(bodies);
  }

  /** What is left at the source: the queue's messages, or the topic's uncommitted records. */
  queueDepth(): Promise<QueueDepth> {
    return this.pipeline.source.depth();
  }

  /** What sits past the ledger: SQS's dead-letter queue (a Kafka source has none). */
  backstopDepth(): Promise<QueueDepth> {
    return this.pipeline.source.backstopDepth();
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
