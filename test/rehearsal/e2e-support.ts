/**
 * Helpers of the end-to-end tests of rules 7, 8 and 11 (outage, verify, stop-conditions): a
 * pipeline started with a few settings (moto, the demo stack deployed from its own template, the
 * outside system, the runner with real processes), readers of what those tests are judged by
 * (the mapping in moto, the breaker item, failure events, executions, the ledger, the quarantine,
 * the queue), the consumer's control lines with their times, the operator CLI in-process, and
 * bounded polling. Self-contained: it reads AWS through the project's adapters and the SDK only.
 */
import { type AttributeValue, GetItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { GetEventSourceMappingCommand } from '@aws-sdk/client-lambda';
import { DescribeExecutionCommand, ListExecutionsCommand } from '@aws-sdk/client-sfn';
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { Duration } from 'aws-cdk-lib';
import { ENV } from '../../contract/env';
import { EXECUTION_NAME_PREFIX } from '../../contract/executions';
import type { QuarantineStatus } from '../../contract/quarantine';
import { OperatorLedger } from '../../lambdas/adapters/operator-ledger';
import { QuarantineRecords } from '../../lambdas/adapters/quarantine-reader';
import { SourceQueue } from '../../lambdas/adapters/source-queue';
import type { QuarantineRecord } from '../../lambdas/core/quarantine-record';
import type { LedgerEntry } from '../../lambdas/ports/ledger';
import type { PoisonQuarantineProps } from '../../lib/poison-quarantine';
import { parseLine } from '../../local/consumer-log';
import type { FaultSpec } from '../../local/faults/shared-plan';
import { type LocalPipeline, startLocalPipeline } from '../../local/local-pipeline';
import type { OutsideSystem, OutsideSystemOptions } from '../../local/outside-system';
import { LOCAL_CREDENTIALS } from '../../tools/local-aws/moto';
import { runCliCaptured } from '../support/run-cli';

export type Item = Record<string, AttributeValue>;

export interface E2eSettings {
  readonly consumerTimeoutSeconds: number;
  /** Execution environments (the mapping's concurrency is set to it). @default - the mapping's own */
  readonly environments?: number;
  readonly pipeline?: Omit<PoisonQuarantineProps, 'processorEntry' | 'consumerTimeout'>;
  readonly outside?: OutsideSystemOptions;
  /** Named faults injected into the consumer's port calls (sim/faults). @default none */
  readonly faults?: readonly FaultSpec[];
}

export interface MappingView {
  readonly state: string;
  readonly batchSize?: number;
  readonly maxConcurrency?: number;
}

/** A mapping reading with the time it was made (epoch ms). */
export interface MappingSample extends MappingView {
  readonly at: number;
}

/** A consumer log line about the whole consumer (`event` is outage-detected, paused, ...). */
export interface ControlLine {
  readonly event: string;
  /** When the runner handed the line over (epoch ms). */
  readonly receivedAt: number;
  /** The logger's own timestamp (epoch ms), when it has one. */
  readonly loggedAt?: number;
  readonly fields: Record<string, unknown>;
}

export interface CliRun {
  readonly argv: readonly string[];
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface ExecutionView {
  readonly name: string;
  readonly status: string;
  readonly executionArn: string;
}

export interface E2e {
  readonly pipeline: LocalPipeline;
  readonly outside: OutsideSystem;
  readonly ledger: OperatorLedger;
  readonly records: QuarantineRecords;
  /** Control lines seen so far, in order of arrival. */
  readonly controlLines: ControlLine[];
  /** Every CLI run so far (for a transcript). */
  readonly cliRuns: CliRun[];
  /** What the runner and the consumer reported, one line each with its time: for a failure's diagnosis. */
  readonly trace: string[];
  /** Sends up to 10 bodies in one request; SQS message ids in order. */
  send(...bodies: string[]): Promise<string[]>;
  queueDepth(): Promise<{ visible: number; inFlight: number; delayed: number; total: number }>;
  mapping(): Promise<MappingView>;
  /** Reads the mapping every `everyMs` in the background, keeping every reading. */
  watchMapping(everyMs?: number): { readonly samples: MappingSample[]; stop(): void };
  /** The breaker item as stored (`undefined`: it never opened). */
  breaker(): Promise<Item | undefined>;
  /** Every failure event of rule 7 in the control table. */
  failureEvents(): Promise<{ key: string; kind: string; at: number }[]>;
  /** Executions of both operations state machines, oldest first. */
  executions(): Promise<ExecutionView[]>;
  executionStatus(name: string): Promise<string | undefined>;
  /** Every quarantine record, whatever its status. */
  quarantineRecords(): Promise<QuarantineRecord[]>;
  /** A quarantine record as stored, with the attributes the reader leaves out (the task token). */
  rawRecord(id: string): Promise<Item | undefined>;
  ledgerItems(keys: readonly string[]): Promise<Map<string, LedgerEntry | undefined>>;
  /** The operator CLI, in-process, pointed at this pipeline the way an operator would. */
  cli(...argv: string[]): Promise<CliRun>;
  stop(): Promise<void>;
}

const STATUSES: readonly QuarantineStatus[] = ['open', 'awaiting-operator', 'resolved', 'replayed'];
const CONTROL_EVENTS = new Set([
  'outage-detected',
  'paused',
  'quarantine-share-exceeded',
  'quarantine-unwritable',
  'quarantine-capacity',
  'quarantined',
]);

export async function startE2e(settings: E2eSettings): Promise<E2e> {
  // The CLI uses the SDK's default credential chain, as on an operator's machine.
  process.env.AWS_ACCESS_KEY_ID = LOCAL_CREDENTIALS.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = LOCAL_CREDENTIALS.secretAccessKey;
  const pipeline = await startLocalPipeline({
    pipeline: { ...settings.pipeline, consumerTimeout: Duration.seconds(settings.consumerTimeoutSeconds) },
    ...(settings.environments === undefined ? {} : { environments: settings.environments }),
    ...(settings.outside === undefined ? {} : { outside: settings.outside }),
    ...(settings.faults === undefined ? {} : { faults: settings.faults }),
  });
  const { clients, aws } = pipeline;
  const env = pipeline.env;
  const [mappingRef] = pipeline.stack.eventSourceMappings;
  const controlTable = env(ENV.controlTable);
  const quarantineTable = env(ENV.quarantineTable);
  const queueUrl = env(ENV.sourceQueueUrl);
  const queue = new SourceQueue(clients.sqs, queueUrl);
  const stateMachines = {
    pause: env(ENV.pauseStateMachineArn),
    verification: env(ENV.verificationStateMachineArn),
  };
  /** Pauses run on the pause machine, everything else (`ou-`) on the verification machine. */
  const machineRunning = (name: string) =>
    name.startsWith(EXECUTION_NAME_PREFIX.pause) ? stateMachines.pause : stateMachines.verification;
  const ledger = new OperatorLedger(clients.dynamodb, env(ENV.attemptsTable));
  const records = new QuarantineRecords(
    clients.s3,
    clients.dynamodb,
    env(ENV.quarantineBucket),
    quarantineTable,
  );

  const controlLines: ControlLine[] = [];
  const unsubscribe = pipeline.runner.on('log', ({ line }) => {
    const entry = parseLine(line);
    if (typeof entry?.event !== 'string' || !CONTROL_EVENTS.has(entry.event)) return;
    const logged = typeof entry.timestamp === 'string' ? Date.parse(entry.timestamp) : Number.NaN;
    controlLines.push({
      event: entry.event,
      receivedAt: Date.now(),
      ...(Number.isFinite(logged) ? { loggedAt: logged } : {}),
      fields: entry,
    });
  });
  const trace: string[] = [];
  const note = (what: string, payload: unknown) =>
    trace.push(`${new Date().toISOString()} ${what} ${JSON.stringify(payload)}`);
  const traced = [
    pipeline.runner.on('invoke', (event) => note('invoke', event)),
    pipeline.runner.on('result', (event) =>
      note('result', { envId: event.envId, deleted: event.deleted, returned: event.returned }),
    ),
    pipeline.runner.on('crash', (event) => note('crash', event)),
    pipeline.runner.on('timeout', (event) => note('timeout', event)),
    pipeline.runner.on('function-error', (event) => note('function-error', event)),
    pipeline.runner.on('mapping-state', (event) => note('mapping-state', event)),
    pipeline.runner.on('warning', (event) => note('warning', event)),
    pipeline.runner.on('log', ({ envId, line }) => {
      const entry = parseLine(line);
      if (entry?.event === 'record')
        note('record', { envId, messageId: entry.messageId, outcome: entry.outcome });
      else if (typeof entry?.event === 'string') note(entry.event, { envId, ...entry });
    }),
  ];
  const watchers: (() => void)[] = [...traced];
  const cliRuns: CliRun[] = [];
  const targetArgs = [
    '--function',
    pipeline.consumer.functionName,
    '--endpoint',
    aws.endpoint,
    '--region',
    aws.region,
  ];

  const mapping = async (): Promise<MappingView> => {
    const read = await clients.lambda.send(new GetEventSourceMappingCommand({ UUID: mappingRef.uuid }));
    return {
      state: read.State ?? 'unknown',
      ...(read.BatchSize === undefined ? {} : { batchSize: read.BatchSize }),
      ...(read.ScalingConfig?.MaximumConcurrency === undefined
        ? {}
        : { maxConcurrency: read.ScalingConfig.MaximumConcurrency }),
    };
  };

  return {
    pipeline,
    outside: pipeline.outside,
    ledger,
    records,
    controlLines,
    cliRuns,
    trace,
    async send(...bodies) {
      const output = await clients.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: bodies.map((body, index) => ({ Id: String(index), MessageBody: body })),
        }),
      );
      if (output.Failed?.length) throw new Error(`SendMessageBatch failed: ${JSON.stringify(output.Failed)}`);
      const ids = new Map((output.Successful ?? []).map((entry) => [entry.Id, entry.MessageId]));
      return bodies.map((_, index) => ids.get(String(index)) as string);
    },
    async queueDepth() {
      const depth = await queue.depth();
      return { ...depth, total: depth.visible + depth.inFlight + depth.delayed };
    },
    mapping,
    watchMapping(everyMs = 100) {
      const samples: MappingSample[] = [];
      let running = true;
      const loop = async () => {
        while (running) {
          try {
            const at = Date.now();
            samples.push({ ...(await mapping()), at });
          } catch {
            // A failed read is a gap in the samples, not a failure of the test.
          }
          await sleep(everyMs);
        }
      };
      void loop();
      const stop = () => {
        running = false;
      };
      watchers.push(stop);
      return { samples, stop };
    },
    async breaker() {
      const { Item: item } = await clients.dynamodb.send(
        new GetItemCommand({
          TableName: controlTable,
          Key: { pk: { S: 'breaker' }, sk: { S: 'state' } },
          ConsistentRead: true,
        }),
      );
      return item;
    },
    async failureEvents() {
      const { Items = [] } = await clients.dynamodb.send(
        new QueryCommand({
          TableName: controlTable,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': { S: 'failure' } },
          ConsistentRead: true,
        }),
      );
      return Items.map((item) => ({
        key: item.key?.S ?? '',
        kind: item.kind?.S ?? '',
        at: Number(item.at?.N ?? Number.NaN),
      })).sort((a, b) => a.at - b.at);
    },
    async executions() {
      const lists = await Promise.all(
        Object.values(stateMachines).map((stateMachineArn) =>
          clients.sfn.send(new ListExecutionsCommand({ stateMachineArn })),
        ),
      );
      return lists
        .flatMap(({ executions = [] }) => executions)
        .map((execution) => ({
          name: execution.name ?? '',
          status: execution.status ?? '',
          executionArn: execution.executionArn ?? '',
          startDate: execution.startDate?.getTime() ?? 0,
        }))
        .sort((a, b) => a.startDate - b.startDate)
        .map(({ name, status, executionArn }) => ({ name, status, executionArn }));
    },
    async executionStatus(name) {
      const executionArn = `${machineRunning(name).replace(':stateMachine:', ':execution:')}:${name}`;
      try {
        const { status } = await clients.sfn.send(new DescribeExecutionCommand({ executionArn }));
        return status;
      } catch (error) {
        if ((error as Error).name === 'ExecutionDoesNotExist') return undefined;
        throw error;
      }
    },
    async quarantineRecords() {
      const lists = await Promise.all(STATUSES.map((status) => records.list({ status })));
      return lists.flat();
    },
    async rawRecord(id) {
      const { Item: item } = await clients.dynamodb.send(
        new GetItemCommand({ TableName: quarantineTable, Key: { id: { S: id } }, ConsistentRead: true }),
      );
      return item;
    },
    async ledgerItems(keys) {
      const items = await Promise.all(keys.map((key) => ledger.get(key)));
      return new Map(keys.map((key, index) => [key, items[index]]));
    },
    async cli(...argv) {
      const run = { argv, ...(await runCliCaptured([...argv, ...targetArgs])) };
      cliRuns.push(run);
      return run;
    },
    async stop() {
      for (const stopWatching of watchers) stopWatching();
      unsubscribe();
      await pipeline.stop();
    },
  };
}

/** A demo message body (lambdas/demo/worker.ts). */
export function demoBody(id: string, behaviour: string, times?: number): string {
  return JSON.stringify(times === undefined ? { id, behaviour } : { id, behaviour, times });
}

/**
 * Watches `check` for `ms` and fails at the first reading that breaks `holds`: for what must
 * stay true for a while (a disabled mapping, a count that must not grow).
 */
export async function holdsFor<T>(
  what: string,
  ms: number,
  read: () => Promise<T>,
  holds: (value: T) => boolean,
  everyMs = 250,
): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await read();
  for (;;) {
    if (!holds(value)) throw new Error(`${what} stopped holding: ${JSON.stringify(value)}`);
    if (Date.now() >= deadline) return value;
    await sleep(everyMs);
    value = await read();
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Attribute helpers for raw items. */
export const str = (item: Item | undefined, name: string): string | undefined => item?.[name]?.S;
export const num = (item: Item | undefined, name: string): number | undefined =>
  item?.[name]?.N === undefined ? undefined : Number(item[name].N);
export const bool = (item: Item | undefined, name: string): boolean | undefined => item?.[name]?.BOOL;

/** Milliseconds of a time as the tables keep it: epoch milliseconds (N) or ISO-8601 (S). */
export function epochMs(value: AttributeValue | undefined): number | undefined {
  if (value?.N !== undefined) return Number(value.N);
  if (value?.S !== undefined) {
    const parsed = Date.parse(value.S);
    return Number.isFinite(parsed) ? parsed : undefined;
  }
  return undefined;
}
