/**
 * The operator CLI against the construct deployed into moto (support/pipeline.ts): runs `runCli`
 * in-process with captured output, finding the pipeline through its consumer function exactly
 * as an operator would, and seeds what the consumer leaves behind when it quarantines a message:
 * content in S3, the record, and the ledger item marked quarantined.
 */
import { randomUUID } from 'node:crypto';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { type Message, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { ENV } from '../../../contract/env';
import { AttemptLedger } from '../../../lambdas/adapters/attempt-ledger';
import { OperatorLedger } from '../../../lambdas/adapters/operator-ledger';
import { QuarantineRecords } from '../../../lambdas/adapters/quarantine-reader';
import { QuarantineWriter, quarantineObjectKeys } from '../../../lambdas/adapters/quarantine-writer';
import type { RecordedMessageAttribute } from '../../../lambdas/adapters/source-queue';
import { errorSignature } from '../../../lambdas/core/evidence';
import { bodyDigest, collisionQuarantineId, quarantineId } from '../../../lambdas/core/ids';
import type { NewQuarantineRecord } from '../../../lambdas/core/quarantine-record';
import type { ErrorEvidence } from '../../../lambdas/core/types';
import { LOCAL_CREDENTIALS } from '../../../tools/local-aws/moto';
import { type CapturedRun, type RunOptions, runCliCaptured } from '../../support/run-cli';
import { type AdapterPipeline, startPipeline } from './pipeline';

export type CliRun = CapturedRun;

export interface Seed {
  readonly body?: string | Buffer;
  readonly status?: 'open' | 'awaiting-operator';
  readonly reason?: NewQuarantineRecord['reason'];
  readonly lastError?: ErrorEvidence;
  readonly messageAttributes?: Readonly<Record<string, RecordedMessageAttribute>>;
  readonly createdAt?: string;
  /** A `key-collision` record, as the consumer writes one: under this seed's key, its ledger item left alone. */
  readonly collidesWith?: Seeded;
}

export interface Seeded {
  readonly id: string;
  readonly messageKey: string;
  readonly body: Buffer;
}

export interface CliHarness {
  readonly pipeline: AdapterPipeline;
  readonly functionName: string;
  /** argv plus --function, --endpoint-url and --region of the local pipeline. */
  run(...argv: string[]): Promise<CliRun>;
  /** As `run`, on a clock and a wait of the test's own (replay --rate), or with stderr a terminal. */
  runOn(options: RunOptions, ...argv: string[]): Promise<CliRun>;
  /** The pipeline's options, for a command line outside runCli. */
  readonly targetArgs: readonly string[];
  quarantine(seed?: Seed): Promise<Seeded>;
  readonly records: QuarantineRecords;
  /** The attempts table as pq reads and writes it. */
  readonly ledger: OperatorLedger;
  /** The attempts table as the consumer writes it, to arrange what a test needs. */
  readonly consumerLedger: AttemptLedger;
  /** Messages on the source queue (nothing consumes it locally: moto's mapping reads a decoy). */
  receive(): Promise<Message[]>;
  stop(): Promise<void>;
}

/** Polls `read` every 100 ms until it returns a value; fails after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  read: () => Promise<T | undefined>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Who moto says the caller is: the `who` of every audit entry the CLI writes here. */
export const MOTO_CALLER = 'arn:aws:sts::123456789012:user/moto';

/**
 * One harness for a test file: started before its tests, given to `started`, its source queue
 * drained before each test (each reads the queue as it left it; nothing else consumes it), and
 * stopped after.
 */
export function withCliHarness(started: (cli: CliHarness) => void): void {
  let cli: CliHarness | undefined;
  beforeAll(async () => {
    cli = await startCliHarness();
    started(cli);
  });
  beforeEach(async () => {
    while (((await cli?.receive()) ?? []).length > 0);
  });
  afterAll(async () => cli?.stop());
}

export const PARSE_ERROR: ErrorEvidence = {
  class: 'permanent',
  name: 'SyntaxError',
  message: 'Unexpected token \'o\', "not json" is not valid JSON',
  stackHead: 'at JSON.parse (<anonymous>)\nat process (/var/task/worker.js:12:20)',
};

export async function startCliHarness(): Promise<CliHarness> {
  // The CLI uses the SDK's default credential chain, as on an operator's machine.
  process.env.AWS_ACCESS_KEY_ID = LOCAL_CREDENTIALS.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = LOCAL_CREDENTIALS.secretAccessKey;
  const pipeline = await startPipeline();
  const consumer = pipeline.stack.functions.find((fn) => fn.environment[ENV.attemptsTable] !== undefined);
  if (!consumer) throw new Error('the deployed template has no consumer function');
  const { clients, names, aws } = pipeline;
  const targetArgs = [
    '--function',
    consumer.functionName,
    '--endpoint-url',
    aws.endpoint,
    '--region',
    aws.region,
  ];
  const writer = new QuarantineWriter(
    clients.s3,
    clients.dynamodb,
    names.quarantineBucket,
    names.quarantineTable,
  );
  const ledger = new AttemptLedger(clients.dynamodb, names.attemptsTable);

  async function quarantine(seed: Seed = {}): Promise<Seeded> {
    const messageKey = seed.collidesWith?.messageKey ?? `order-${randomUUID()}`;
    const messageId = seed.collidesWith ? `m-${randomUUID()}` : `m-${messageKey}`;
    const id = seed.collidesWith
      ? collisionQuarantineId(messageKey, messageId)
      : quarantineId(messageKey, 0, 3);
    const body = Buffer.isBuffer(seed.body)
      ? seed.body
      : Buffer.from(seed.body ?? `{"order":"${messageKey}"}`);
    const lastError = seed.lastError ?? PARSE_ERROR;
    const envelope = { messageId, messageAttributes: seed.messageAttributes ?? {} };
    const keys = quarantineObjectKeys(id);
    // Straight to S3: the writer takes SQS's string bodies only, and a test needs raw bytes too.
    for (const [key, bytes] of [
      [keys.bodyKey, body],
      [keys.envelopeKey, Buffer.from(JSON.stringify(envelope))],
    ] as const) {
      await clients.s3.send(new PutObjectCommand({ Bucket: names.quarantineBucket, Key: key, Body: bytes }));
    }
    if (seed.collidesWith === undefined) {
      const started = await ledger.start({
        key: messageKey,
        attemptId: randomUUID(),
        envId: 'env-1',
        messageId,
        bodyDigest: bodyDigest(body.toString('utf8')),
        attemptLimit: 3,
        now: new Date('2030-01-01T00:00:00Z'),
        expiresAt: 1_900_000_000,
      });
      if (!started.started) throw new Error('seed: the ledger item existed already');
      await ledger.markQuarantined(messageKey, {
        attemptId: started.item.attemptId,
        quarantineId: id,
        charge: 3,
        now: new Date(),
      });
    }
    await writer.putRecord({
      id,
      status: seed.status ?? 'open',
      reason: seed.reason ?? (seed.collidesWith ? 'key-collision' : 'permanent-error'),
      cause: 'unidentified',
      messageKey,
      messageId: envelope.messageId,
      generation: 0,
      attemptsStarted: 3,
      attemptsCharged: 3,
      stage: 'parsed',
      lastError,
      errorSignature: errorSignature(lastError),
      firstAttemptAt: '2030-01-01T00:00:00.000Z',
      lastAttemptAt: '2030-01-01T00:02:00.000Z',
      createdAt: seed.createdAt ?? new Date().toISOString(),
      sourceQueueArn: names.sourceQueueArn,
      ...keys,
      bodyBytes: body.length,
    });
    return { id, messageKey, body };
  }

  const runCaptured = (argv: readonly string[], options: RunOptions) =>
    runCliCaptured([...argv, ...targetArgs], options);

  return {
    pipeline,
    functionName: consumer.functionName,
    targetArgs,
    run: (...argv) => runCaptured(argv, {}),
    runOn: (options, ...argv) => runCaptured(argv, options),
    quarantine,
    records: new QuarantineRecords(
      clients.s3,
      clients.dynamodb,
      names.quarantineBucket,
      names.quarantineTable,
    ),
    ledger: new OperatorLedger(clients.dynamodb, names.attemptsTable),
    consumerLedger: ledger,
    async receive() {
      const { Messages = [] } = await clients.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: names.sourceQueueUrl,
          MaxNumberOfMessages: 10,
          MessageAttributeNames: ['All'],
          WaitTimeSeconds: 0,
        }),
      );
      return Messages;
    },
    stop: () => pipeline.stop(),
  };
}
