/**
 * `pq backstop` against the construct deployed into moto (issue 21, item 1): a message SQS moved
 * to the backstop queue past its redrive policy's receives is listed with our ledger's view,
 * taken into quarantine with its exact bytes (reason `backstop`, audited, its key's ledger item
 * quarantined by it) and deleted from the backstop only then; the record is then caused and
 * replayed as any other. `redrive` sends a message back to the source queue unchanged.
 */
import { createHash } from 'node:crypto';
import { GetFunctionConfigurationCommand, UpdateFunctionConfigurationCommand } from '@aws-sdk/client-lambda';
import {
  GetQueueAttributesCommand,
  type MessageAttributeValue,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '../../contract/env';
import { backstopQuarantineId } from '../../lambdas/core/ids';
import { type CliHarness, startCliHarness } from './support/cli-harness';

let cli: CliHarness;
let backstopUrl = '';

beforeAll(async () => {
  cli = await startCliHarness();
  const { Attributes } = await cli.pipeline.clients.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: cli.pipeline.names.sourceQueueUrl,
      AttributeNames: ['RedrivePolicy'],
    }),
  );
  const arn = JSON.parse(String(Attributes?.RedrivePolicy)).deadLetterTargetArn as string;
  backstopUrl = cli.pipeline.names.sourceQueueUrl.replace(/[^/]+$/, arn.split(':').at(-1) ?? '');
});
afterAll(async () => cli?.stop());

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/**
 * A message the way SQS moves one to the backstop: sent to the source queue and received past its
 * redrive policy's maxReceiveCount (nothing consumes the source queue here but this).
 */
async function intoBackstop(
  body: string,
  attributes: Record<string, MessageAttributeValue> = {},
): Promise<string> {
  const { sqs } = cli.pipeline.clients;
  const queueUrl = cli.pipeline.names.sourceQueueUrl;
  const { MessageId } = await sqs.send(
    new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body, MessageAttributes: attributes }),
  );
  for (let receive = 0; receive < 40; receive++) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, VisibilityTimeout: 0, MaxNumberOfMessages: 10 }),
    );
    if (Messages.length === 0) return String(MessageId);
  }
  throw new Error(`message ${MessageId} never reached the backstop`);
}

async function backstopHolds(): Promise<number> {
  const { Attributes } = await cli.pipeline.clients.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: backstopUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return (
    Number(Attributes?.ApproximateNumberOfMessages) +
    Number(Attributes?.ApproximateNumberOfMessagesNotVisible)
  );
}

// In order: the empty backstop; a take and the replay of its record; a redrive.
describe('pq backstop', () => {
  it('says so when the backstop is empty', async () => {
    const run = await cli.run('backstop');

    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Backstop arn:aws:sqs:\S+: 0 visible, 0 held\n\n\(empty\)\n$/);
  });

  it('takes a message into quarantine with its exact bytes, deletes it only then, and its record replays', async () => {
    // Prepare
    const body = '{"order":"ünïcødé ✓","lines":[1,2,3]}\n';
    const messageId = await intoBackstop(body, {
      tenant: { DataType: 'String', StringValue: 'acme' },
      blob: { DataType: 'Binary', BinaryValue: Buffer.from([0, 1, 254, 255]) },
    });
    const recordId = backstopQuarantineId(messageId);

    // Act
    const list = await cli.run('backstop', 'list');
    const show = await cli.run('backstop', 'show', messageId);
    const noReason = await cli.run('backstop', 'take', messageId);
    const take = await cli.run(
      'backstop',
      'take',
      messageId,
      '--reason',
      'the consumer could not record during the outage',
    );
    const again = await cli.run('backstop', 'take', messageId, '--reason', 'twice');

    // Assess: listed with the ledger's view, refused without a reason, taken once.
    expect(list.stdout).toMatch(
      new RegExp(
        `^${messageId}\\s+\\S+Z\\s+\\d+\\s+${Buffer.byteLength(body)}\\s+${messageId}\\s+no item$`,
        'm',
      ),
    );
    expect(show.stdout).toContain(`Record if taken:  ${recordId}`);
    expect(show.stdout).toContain(`-----BEGIN BODY-----\n${body}-----END BODY-----\n`);
    expect(noReason.code).toBe(2);
    expect(take).toMatchObject({ code: 0, stdout: `Taken ${messageId}: ${recordId}\n`, stderr: '' });
    expect(again).toMatchObject({
      code: 3,
      stderr: expect.stringContaining(`not found: no message ${messageId} in the backstop`),
    });
    expect(await backstopHolds()).toBe(0);
    const record = await cli.records.get(recordId);
    expect(record).toMatchObject({
      reason: 'backstop',
      status: 'open',
      cause: 'unidentified',
      messageKey: messageId,
      messageId,
      sourceQueueArn: cli.pipeline.names.sourceQueueArn,
      audit: [
        expect.objectContaining({
          what: 'backstop-take',
          why: 'the consumer could not record during the outage',
        }),
      ],
    });
    expect(sha256(await cli.records.readBody(recordId))).toBe(sha256(Buffer.from(body, 'utf8')));
    expect((await cli.records.readEnvelope(recordId)).messageAttributes).toStrictEqual({
      tenant: { dataType: 'String', stringValue: 'acme' },
      blob: { dataType: 'Binary', binaryValue: Buffer.from([0, 1, 254, 255]).toString('base64') },
    });
    expect(await cli.ledger.get(messageId)).toMatchObject({ state: 'quarantined', quarantineId: recordId });

    // Act: the record goes on as any other.
    expect((await cli.run('cause', recordId, 'the ledger table was throttled')).code).toBe(0);
    const replay = await cli.run('replay', recordId, '--reason', 'throttling fixed');

    // Assess: the exact body back on the source queue, marked, under a fresh budget.
    expect(replay.code).toBe(0);
    const [replayed] = await cli.receive();
    expect(sha256(String(replayed?.Body))).toBe(sha256(body));
    expect(replayed?.MessageAttributes?.['pq-replay-of']?.StringValue).toBe(recordId);
    expect(replayed?.MessageAttributes?.blob?.BinaryValue).toStrictEqual(Uint8Array.from([0, 1, 254, 255]));
    expect(await cli.ledger.get(messageId)).toMatchObject({ state: 'ready', generation: 1 });
  });

  it('given the quarantine bucket cannot be written, then the take fails and the message stays in the backstop', async () => {
    // Prepare: the consumer's environment names a bucket that does not exist.
    const messageId = await intoBackstop('{"id":"kept"}');
    const { lambda } = cli.pipeline.clients;
    const { Environment } = await lambda.send(
      new GetFunctionConfigurationCommand({ FunctionName: cli.functionName }),
    );
    const variables = Environment?.Variables ?? {};
    await lambda.send(
      new UpdateFunctionConfigurationCommand({
        FunctionName: cli.functionName,
        Environment: { Variables: { ...variables, [ENV.quarantineBucket]: 'pq-no-such-bucket' } },
      }),
    );
    try {
      // Act
      const take = await cli.run('backstop', 'take', messageId, '--reason', 'bucket gone');

      // Assess
      expect(take.code).toBe(1);
      expect(take.stderr).toContain('pq-no-such-bucket');
      expect(await cli.records.get(backstopQuarantineId(messageId))).toBeUndefined();
      expect(await backstopHolds()).toBe(1);
    } finally {
      await lambda.send(
        new UpdateFunctionConfigurationCommand({
          FunctionName: cli.functionName,
          Environment: { Variables: variables },
        }),
      );
    }
    // The message was released, not hidden for the take's hold: a take now finishes it.
    expect((await cli.run('backstop', 'take', messageId, '--reason', 'bucket back')).code).toBe(0);
  });

  it('given more messages than one receive brings, then list shows each once and take finds any of them', async () => {
    // Prepare: 25 messages straight into the backstop (SQS hands out at most 10 a receive).
    const { sqs } = cli.pipeline.clients;
    const ids: string[] = [];
    for (let n = 0; n < 25; n++) {
      const { MessageId } = await sqs.send(
        new SendMessageCommand({ QueueUrl: backstopUrl, MessageBody: `{"n":${n}}` }),
      );
      ids.push(String(MessageId));
    }
    const last = ids.at(-1) ?? '';

    // Act
    const list = await cli.run('backstop', 'list', '--json');
    const show = await cli.run('backstop', 'show', last);
    const take = await cli.run('backstop', 'take', last, '--reason', 'the last one');
    const all = await cli.run('backstop', 'take', '--all', '--reason', 'the rest');

    // Assess
    const listed = (JSON.parse(list.stdout) as { messages: { messageId: string }[] }).messages;
    expect(listed.map((message) => message.messageId).sort()).toStrictEqual([...ids].sort());
    expect(show.code).toBe(0);
    expect(take).toMatchObject({ code: 0, stdout: `Taken ${last}: ${backstopQuarantineId(last)}\n` });
    expect(all.code).toBe(0);
    expect(all.stdout.split('\n').filter((line) => line.startsWith('Taken ')).length).toBe(24);
    expect(await backstopHolds()).toBe(0);
  });

  it('redrives every message back to the source queue unchanged', async () => {
    const body = 'plain text, not JSON';
    const messageId = await intoBackstop(body, { tenant: { DataType: 'String', StringValue: 'acme' } });

    const run = await cli.run('backstop', 'redrive', '--all');

    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^Redriven ${messageId}: sent to the source queue as \\S+\\n$`));
    expect(await backstopHolds()).toBe(0);
    const [redriven] = await cli.receive();
    expect(redriven?.Body).toBe(body);
    expect(redriven?.MessageAttributes?.tenant?.StringValue).toBe('acme');
  });
});
