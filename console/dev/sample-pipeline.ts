/**
 * Quarantine records for the console's browser tests and screenshots, made the way a deployment
 * makes them: the demo stack deployed into the embedded local AWS (local/local-pipeline.ts), its
 * consumer run by the event-source runner in real processes with real kills, and messages whose
 * demo behaviours (lambdas/demo/worker.ts) end in quarantine:
 *
 * | label        | the message                                               | ends as                   |
 * | ------------ | --------------------------------------------------------- | ------------------------- |
 * | crash        | crash-in-parser: SIGKILL on every attempt                 | crash-limit, open         |
 * | notJson      | plain text with a `<script>`: the worker does its work    | crash-limit, open         |
 * |              | and is killed before recording it, twice (a named fault   |                           |
 * |              | at `ledger.complete`, sim/faults)                         |                           |
 * | unknown1..3  | crash-after-external: killed after the outside call       | outcome-unknown, awaiting |
 * | permanent1/2 | throw-permanent: one failure group of two                 | permanent-error, open     |
 * | script       | throw-permanent, its id a `<script>`: in the error too    | permanent-error, open     |
 * | big          | throw-permanent, a body of exactly 1 MiB                  | permanent-error, open     |
 *
 * Then the quarantine is full (capacity 9): one more permanent failure stops the consumer (rule
 * 11a), and its pause run disables the mapping and waits for an operator's `resume`.
 *
 * Timings are scaled down as in the rehearsal: one charged attempt, and a 5 s consumer timeout
 * (a crash comes back after 30 s; shorter ones turned slow quarantine writes, the 1 MiB body's
 * above all, into timeouts on a loaded machine, quarantined as crash-limit). Crashes of different messages must not read as an
 * outage here, so the outage threshold and the quarantine share are set out of reach.
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { Duration } from 'aws-cdk-lib';
import { DEFAULTS } from '../../contract/defaults';
import { ENV } from '../../contract/env';
import { QUARANTINE_STATUS } from '../../contract/quarantine';
import { OperatorControl } from '../../lambdas/adapters/operator-control';
import { QuarantineRecords } from '../../lambdas/adapters/quarantine-reader';
import { groupId } from '../../lambdas/core/operator';
import type { QuarantineRecord } from '../../lambdas/core/quarantine-record';
import { type LocalPipeline, startLocalPipeline } from '../../local/local-pipeline';
import { LOCAL_CREDENTIALS } from '../../tools/local-aws/moto';

export const ONE_MIB = 1_048_576;

/** The body of a message of exactly `bytes` bytes whose worker throws a permanent error. */
function bigBody(bytes: number): string {
  const head = '{"id":"BIG","behaviour":"throw-permanent","padding":"';
  const tail = '"}';
  return `${head}${'x'.repeat(bytes - head.length - tail.length)}${tail}`;
}

const order = (id: string, behaviour: string, extra: object = {}) =>
  JSON.stringify({ id, behaviour, ...extra });

export const SAMPLE_BODIES = {
  crash: order('C1', 'crash-in-parser', { order: 4711, lines: [{ sku: 'A-1', qty: 2 }] }),
  notJson: 'order 4712 <script>document.title="pwned by a body"</script> is not JSON',
  unknown1: order('O1', 'crash-after-external', { payment: { amount: '12.50', currency: 'EUR' } }),
  unknown2: order('O2', 'crash-after-external', { payment: { amount: '99.00', currency: 'EUR' } }),
  unknown3: order('O3', 'crash-after-external', { payment: { amount: '7.25', currency: 'EUR' } }),
  permanent1: order('P1', 'throw-permanent', { customer: 'c-17' }),
  permanent2: order('P2', 'throw-permanent', { customer: 'c-18' }),
  script: order('<script>document.title="pwned by an error"</script>', 'throw-permanent'),
  big: bigBody(ONE_MIB),
} as const;

export type SampleLabel = keyof typeof SAMPLE_BODIES;

/** One message more than the quarantine holds: it stops the consumer. */
const STOPPER_BODY = order('S1', 'throw-permanent');
const CAPACITY = Object.keys(SAMPLE_BODIES).length;

export interface SamplePipeline {
  readonly pipeline: LocalPipeline;
  readonly functionName: string;
  readonly endpoint: string;
  readonly region: string;
  /** What `pq` needs to find the pipeline: --function, --endpoint, --region. */
  readonly targetArgs: readonly string[];
  /** The quarantine record of each sample message. */
  readonly ids: Readonly<Record<SampleLabel, string>>;
  /** The failure group of permanent1 and permanent2. */
  readonly permanentGroup: string;
  readonly records: QuarantineRecords;
  readonly control: OperatorControl;
  stop(): Promise<void>;
}

export interface SampleOptions {
  /** @default 180 s */
  readonly timeoutMs?: number;
  /** Told each step as it begins. @default - nothing */
  readonly progress?: (step: string) => void;
}

export async function startSamplePipeline(options: SampleOptions = {}): Promise<SamplePipeline> {
  const progress = options.progress ?? (() => undefined);
  progress('deploying the demo stack into the local AWS');
  const pipeline = await startLocalPipeline({
    stackName: 'ConsoleSample',
    pipeline: {
      consumerTimeout: Duration.seconds(5),
      attemptLimit: 1,
      batchSize: 1,
      outageFailureThreshold: 1000,
      quarantineShareThreshold: 0.99,
      quarantineCapacity: CAPACITY,
    },
    environments: 3,
    faults: [{ at: 'ledger.complete', error: 'crash', times: 1 }],
  });
  try {
    const { clients, aws } = pipeline;
    const env = pipeline.env;
    const records = new QuarantineRecords(
      clients.s3,
      clients.dynamodb,
      env(ENV.quarantineBucket),
      env(ENV.quarantineTable),
    );
    const control = new OperatorControl(
      clients.dynamodb,
      env(ENV.controlTable),
      DEFAULTS.breakerCooldownSeconds,
    );
    const deadline = Date.now() + (options.timeoutMs ?? 180_000);
    progress('sending the sample messages and waiting for their quarantine');

    const sent = new Map<string, SampleLabel>();
    for (const [label, body] of Object.entries(SAMPLE_BODIES) as [SampleLabel, string][]) {
      sent.set(await send(pipeline, body), label);
    }
    const ids = await until('every sample quarantined, each outcome unknown waiting', deadline, async () => {
      const found = await unresolved(records);
      const waiting = found.filter((record) => record.reason !== 'outcome-unknown' || record.waitingSince);
      if (waiting.length < sent.size) return undefined;
      return Object.fromEntries(
        found.map((record) => [sent.get(record.messageId) ?? record.messageId, record.id]),
      ) as Record<SampleLabel, string>;
    });

    progress('filling the quarantine to capacity: the consumer stops');
    await send(pipeline, STOPPER_BODY);
    await until('the consumer stopped at capacity, waiting for an operator', deadline, async () => {
      const { breaker } = await control.read();
      return breaker.breaker?.state === 'open' && breaker.waitingForOperator ? true : undefined;
    });
    const functionName = pipeline.consumer.functionName;
    const permanent = await records.get(ids.permanent1);
    return {
      pipeline,
      functionName,
      endpoint: aws.endpoint,
      region: aws.region,
      targetArgs: ['--function', functionName, '--endpoint', aws.endpoint, '--region', aws.region],
      ids,
      permanentGroup: groupId(permanent?.errorSignature ?? ''),
      records,
      control,
      stop: () => pipeline.stop(),
    };
  } catch (error) {
    await pipeline.stop();
    throw error;
  }
}

/** moto accepts any credentials; `pq` finds them where an operator's would be. */
export function useLocalCredentials(): void {
  process.env.AWS_ACCESS_KEY_ID = LOCAL_CREDENTIALS.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = LOCAL_CREDENTIALS.secretAccessKey;
}

async function send(pipeline: LocalPipeline, body: string): Promise<string> {
  const { MessageId } = await pipeline.clients.sqs.send(
    new SendMessageCommand({ QueueUrl: pipeline.env(ENV.sourceQueueUrl), MessageBody: body }),
  );
  if (!MessageId) throw new Error('SQS returned no message id');
  return MessageId;
}

async function unresolved(records: QuarantineRecords): Promise<QuarantineRecord[]> {
  const pages = await Promise.all(
    [QUARANTINE_STATUS.open, QUARANTINE_STATUS.awaitingOperator].map((status) => records.list({ status })),
  );
  return pages.flat();
}

async function until<T>(what: string, deadline: number, read: () => Promise<T | undefined>): Promise<T> {
  while (Date.now() < deadline) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`sample pipeline: timed out waiting for ${what}`);
}
