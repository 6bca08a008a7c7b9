/**
 * How the open-record counter reads a cancelled transaction (lambdas/adapters/open-records.ts).
 * The local AWS serialises every DynamoDB request (tools/local-aws/moto-launcher.py), so two transactions
 * never overlap there and it cannot cancel one for a conflict or a throttle: these cases answer
 * with the SDK's own TransactionCanceledException, as DynamoDB does, from a scripted client.
 */
import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  GetItemCommand,
  QueryCommand,
  TransactionCanceledException,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { COUNTER_KEY, OpenRecordsCounter, type RecordWrite } from '../../lambdas/adapters/open-records';
import { OpenRecordsCountError } from '../../lambdas/ports/errors';

type Reason = { Code: string; Item?: Record<string, { S: string }> };

const cancelled = (...reasons: Reason[]) =>
  new TransactionCanceledException({
    message: `Transaction cancelled [${reasons.map((reason) => reason.Code).join(', ')}]`,
    $metadata: {},
    CancellationReasons: reasons,
  });

/** Answers each command with the next scripted answer (an error is thrown); records what was sent. */
function scriptedClient(answers: readonly (object | Error)[]) {
  const sent: unknown[] = [];
  const client = {
    send: async (command: unknown) => {
      sent.push(command);
      const answer = answers[sent.length - 1];
      if (answer instanceof Error) throw answer;
      return answer ?? {};
    },
  } as unknown as DynamoDBClient;
  return { counter: new OpenRecordsCounter(client, 'quarantine'), sent };
}

const kinds = (sent: readonly unknown[]) => sent.map((command) => (command as object).constructor);

const DISCARD: RecordWrite = {
  update: {
    key: { id: { S: 'q-1' } },
    update: 'SET #status = :to',
    condition: '#status = :from',
    values: { ':to': { S: 'resolved' }, ':from': { S: 'open' } },
  },
};

describe('OpenRecordsCounter.write, when DynamoDB cancels the transaction', () => {
  it('given an overlapping transaction on the counter, then it writes again and succeeds', async () => {
    // Prepare
    const { counter, sent } = scriptedClient([
      cancelled({ Code: 'None' }, { Code: 'TransactionConflict' }),
      {},
    ]);

    // Act
    const outcome = await counter.write(DISCARD, -1);

    // Assess
    expect(outcome).toStrictEqual({ ok: true });
    expect(kinds(sent)).toStrictEqual([TransactWriteItemsCommand, TransactWriteItemsCommand]);
  });

  it("given the record's condition failed, then that is the answer, with the record as it was, and nothing more is sent", async () => {
    // Prepare
    const old = { id: { S: 'q-1' }, status: { S: 'resolved' } };
    const { counter, sent } = scriptedClient([
      cancelled({ Code: 'ConditionalCheckFailed', Item: old }, { Code: 'None' }),
    ]);

    // Act
    const outcome = await counter.write(DISCARD, -1);

    // Assess
    expect(outcome).toStrictEqual({ ok: false, old });
    expect(sent).toHaveLength(1);
  });

  it('given no counter, then it counts the index, creates the counter and writes again', async () => {
    // Prepare
    const { counter, sent } = scriptedClient([
      cancelled({ Code: 'None' }, { Code: 'ConditionalCheckFailed' }),
      { Count: 4 },
      { Count: 1 },
      {},
      {},
    ]);

    // Act
    const outcome = await counter.write(DISCARD, -1);

    // Assess
    expect(outcome).toStrictEqual({ ok: true });
    expect(kinds(sent)).toStrictEqual([
      TransactWriteItemsCommand,
      QueryCommand,
      QueryCommand,
      UpdateItemCommand,
      TransactWriteItemsCommand,
    ]);
    expect((sent[3] as UpdateItemCommand).input).toMatchObject({
      Key: COUNTER_KEY,
      ExpressionAttributeValues: { ':counted': { N: '5' } },
      ConditionExpression: 'attribute_not_exists(#openRecords)',
    });
  });

  it('given conflicts that do not clear, then it gives up after 6 retries with OpenRecordsCountError', async () => {
    // Prepare
    const conflict = cancelled({ Code: 'None' }, { Code: 'TransactionConflict' });
    const { counter, sent } = scriptedClient(Array.from({ length: 10 }, () => conflict));

    // Act
    const outcome = counter.write(DISCARD, -1);

    // Assess
    await expect(outcome).rejects.toBeInstanceOf(OpenRecordsCountError);
    await expect(outcome).rejects.toThrow(/not written together \(None, TransactionConflict\)/);
    expect(sent).toHaveLength(7);
  });

  it('given a reason no retry changes (a validation error), then it fails at once', async () => {
    // Prepare
    const { counter, sent } = scriptedClient([cancelled({ Code: 'ValidationError' }, { Code: 'None' })]);

    // Act
    const outcome = counter.write(DISCARD, -1);

    // Assess
    await expect(outcome).rejects.toBeInstanceOf(OpenRecordsCountError);
    expect(sent).toHaveLength(1);
  });
});

describe('OpenRecordsCounter.current', () => {
  it('given a counter, then one strongly consistent GetItem of its key answers', async () => {
    // Prepare
    const { counter, sent } = scriptedClient([{ Item: { ...COUNTER_KEY, openRecords: { N: '12' } } }]);

    // Act
    const count = await counter.current();

    // Assess
    expect(count).toBe(12);
    expect(kinds(sent)).toStrictEqual([GetItemCommand]);
    expect((sent[0] as GetItemCommand).input).toMatchObject({ Key: COUNTER_KEY, ConsistentRead: true });
  });

  it('given no counter and another writer creating it first, then its count stands, read back', async () => {
    // Prepare: the creating update asks for nothing back (the consumer's role may not), so the
    // counter the other writer made is read again.
    const { counter, sent } = scriptedClient([
      {},
      { Count: 2 },
      { Count: 0 },
      new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} }),
      { Item: { ...COUNTER_KEY, openRecords: { N: '3' } } },
    ]);

    // Act
    const count = await counter.current();

    // Assess
    expect(count).toBe(3);
    expect(kinds(sent).at(-1)).toBe(GetItemCommand);
  });
});
