/**
 * Counts the AWS calls made on behalf of each record, so the cost of a healthy message is
 * measured, not assumed (2 DynamoDB writes, 0 reads, 0 S3 calls). Each record runs inside its
 * own async context; calls made outside one (the cached control-state read) are not charged
 * to any record.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface CallCounts {
  dynamodbWrites: number;
  dynamodbReads: number;
  s3: number;
  sqs: number;
  sfn: number;
}

const DYNAMODB_READS = new Set(['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand', 'ScanCommand']);

/** A DynamoDB command that reads (billed in read units); every other one writes. */
export function isDynamodbRead(command: string): boolean {
  return DYNAMODB_READS.has(command);
}

const emptyCounts = (): CallCounts => ({
  dynamodbWrites: 0,
  dynamodbReads: 0,
  s3: 0,
  sqs: 0,
  sfn: 0,
});

export class CallMeter {
  private readonly current = new AsyncLocalStorage<CallCounts>();

  /** Runs `work` with its own counters and returns them with its result. */
  async measure<T>(work: () => Promise<T>): Promise<{ result: T; calls: CallCounts }> {
    const calls = emptyCounts();
    const result = await this.current.run(calls, work);
    return { result, calls };
  }

  /** Adds a counting step to an SDK v3 client of the given service. */
  attach(
    service: 'dynamodb' | 's3' | 'sqs' | 'sfn',
    client: {
      middlewareStack: { add: (middleware: never, options: { step: 'initialize'; name: string }) => void };
    },
  ): void {
    const middleware =
      (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) =>
      async (args: unknown) => {
        this.count(service, context.commandName ?? '');
        return next(args);
      };
    client.middlewareStack.add(middleware as never, {
      step: 'initialize',
      name: 'poisonQuarantineCallMeter',
    });
  }

  private count(service: 'dynamodb' | 's3' | 'sqs' | 'sfn', command: string): void {
    const calls = this.current.getStore();
    if (!calls) return;
    if (service === 'dynamodb') {
      if (isDynamodbRead(command)) calls.dynamodbReads += 1;
      else calls.dynamodbWrites += 1;
    } else {
      calls[service] += 1;
    }
  }
}
