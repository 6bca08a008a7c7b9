/**
 * Issue 22, defects 1, 3 and 7: a replay has to get past SQS's own rules (FIFO deduplication, the
 * attribute count, the message size) and past a ledger item that is not its own. Against the
 * construct deployed into moto; where moto is laxer than SQS, the in-memory world's queue is not,
 * and the last block pins both (docs/local-differences.md, "SQS").
 */
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  type Message,
  type MessageAttributeValue,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { type Deployment, resolveDeployment } from '../../cli/deployment';
import { replayMessage, replayRecord } from '../../cli/replay-flow';
import { type ReplayInput, SourceQueue } from '../../lambdas/adapters/source-queue';
import { bodyDigest } from '../../lambdas/core/ids';
import type { QuarantineRecord } from '../../lambdas/core/quarantine-record';
import { SourceQueueError } from '../../lambdas/ports/errors';
import { Clock } from '../../sim/world/clock';
import { MemoryQueue } from '../../sim/world/memory-queue';
import { type CliHarness, MOTO_CALLER, withCliHarness } from './support/cli-harness';

let cli: CliHarness;

withCliHarness((started) => {
  cli = started;
});

const MIB = 1_048_576;
const attribute = (value: string) => ({ dataType: 'String', stringValue: value });
const attributes = (count: number) =>
  Object.fromEntries(Array.from({ length: count }, (_, n) => [`a${n}`, attribute(`v${n}`)]));

async function fifoQueue(): Promise<string> {
  const { QueueUrl } = await cli.pipeline.clients.sqs.send(
    new CreateQueueCommand({ QueueName: `replay-${Date.now()}.fifo`, Attributes: { FifoQueue: 'true' } }),
  );
  return QueueUrl as string;
}

async function receiveFrom(queueUrl: string): Promise<Message[]> {
  const { Messages = [] } = await cli.pipeline.clients.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      MessageAttributeNames: ['All'],
      MessageSystemAttributeNames: ['MessageDeduplicationId'],
      WaitTimeSeconds: 0,
    }),
  );
  return Messages;
}

/** A SendMessage that reached SQS and then timed out on its way back: the CLI cannot tell it went. */
class TimingOutAfterSend extends SourceQueue {
  timeouts = 1;

  override async replay(input: ReplayInput): Promise<{ readonly messageId: string }> {
    const sent = await super.replay(input);
    if (this.timeouts-- > 0) throw new SourceQueueError('Queue q: SendMessage failed: TimeoutError');
    return sent;
  }
}

/** The pipeline as `pq` finds it, on a source queue of the test's own. */
async function deploymentWith(queue: SourceQueue): Promise<Deployment> {
  const target = {
    functionName: cli.functionName,
    endpoint: cli.pipeline.aws.endpoint,
    region: cli.pipeline.aws.region,
  };
  return { ...(await resolveDeployment(target)), queue };
}

/** `pq replay` of `id` on `deployment`, its record changed by `as` (a FIFO group, say). */
async function replayOn(deployment: Deployment, id: string, as: Partial<QuarantineRecord> = {}) {
  const stored = await cli.records.get(id);
  if (stored === undefined) throw new Error(`no record ${id}`);
  const record = { ...stored, ...as };
  const message = await replayMessage(deployment, record);
  if ('refused' in message) throw new Error(message.refused);
  return replayRecord(deployment, record, message, 'replay', {
    who: MOTO_CALLER,
    why: 'fixed',
    now: new Date(),
  });
}

/** A SendMessage SQS refused: nothing was sent. */
class RefusingSend extends SourceQueue {
  override async replay(): Promise<never> {
    throw new SourceQueueError('Queue q: SendMessage failed: ServiceUnavailable (HTTP 503)');
  }
}

describe('defect 1: FIFO replay deduplicated into nothing', () => {
  it('each replay claim sends its own deduplication id, so a replay after an undone one is delivered', async () => {
    // Prepare: the pipeline's deployment, its source queue a FIFO queue.
    const queueUrl = await fifoQueue();
    const deployment = await deploymentWith(new TimingOutAfterSend(cli.pipeline.clients.sqs, queueUrl));
    const seeded = await cli.quarantine();
    await cli.run('cause', seeded.id, 'schema v3 deployed');
    const replay = () => replayOn(deployment, seeded.id, { messageGroupId: 'g-1' });

    // Act: the first replay times out after its message reached SQS and is undone; the consumer
    // acknowledges the copy as a duplicate (the ledger is quarantined again); the operator replays again.
    await expect(replay()).rejects.toThrow(/TimeoutError/);
    const [copy] = await receiveFrom(queueUrl);
    await cli.pipeline.clients.sqs.send(
      new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: copy?.ReceiptHandle }),
    );
    await replay();

    // Assess: SQS would drop a second send under the first one's id for five minutes.
    const [second, ...others] = await receiveFrom(queueUrl);
    expect(others).toStrictEqual([]);
    const deduplicationId = (message: Message | undefined) => message?.Attributes?.MessageDeduplicationId;
    expect(deduplicationId(copy)).toMatch(/^replay-/);
    expect(deduplicationId(second)).toMatch(/^replay-/);
    expect(deduplicationId(second)).not.toBe(deduplicationId(copy));
    expect((await cli.records.get(seeded.id))?.status).toBe('replayed');
  });
});

describe('defect 3: a key-collision record cannot be replayed', () => {
  it('replays the stored message under its own identity and leaves the other message ledger item alone', async () => {
    // Prepare: another message holds the key; this one arrived under it with other bytes.
    const other = await cli.quarantine();
    const collided = await cli.quarantine({ collidesWith: other, body: '{"order":"corrected"}' });
    const record = await cli.records.get(collided.id);
    const ownKey = record?.messageId as string;
    await cli.run('cause', collided.id, 'producer resent a corrected order under the same id');
    const othersItem = await cli.ledger.get(other.messageKey);

    // Act
    const dryRun = await cli.run('replay', collided.id, '--dry-run');
    const replay = await cli.run('replay', collided.id, '--reason', 'the corrected order must run');

    // Assess
    expect(dryRun).toMatchObject({ code: 0, stderr: '' });
    expect(dryRun.stdout).toMatch(
      new RegExp(
        `^${collided.id} +would replay +cause: producer resent a corrected order under the same id; ` +
          `as its own message \\(key ${ownKey}\\), the ledger item of ${other.messageKey} is left alone$`,
        'm',
      ),
    );
    expect(replay).toMatchObject({ code: 0, stderr: '' });
    const [message, ...others] = await cli.receive();
    expect(others).toStrictEqual([]);
    expect(message?.Body).toBe('{"order":"corrected"}');
    expect(message?.MessageAttributes?.['pq-message-key']?.StringValue).toBe(ownKey);
    expect(message?.MessageAttributes?.['pq-replay-of']?.StringValue).toBe(collided.id);
    expect(await cli.ledger.get(other.messageKey)).toStrictEqual(othersItem);
    expect(await cli.ledger.get(ownKey)).toMatchObject({
      state: 'ready',
      generation: 1,
      replayOf: collided.id,
    });
    expect((await cli.records.get(collided.id))?.status).toBe('replayed');
    // The consumer works on it under its own key: the item reset for exactly this replay.
    const started = await cli.consumerLedger.start({
      key: ownKey,
      attemptId: 'a-replayed',
      envId: 'env-2',
      messageId: message?.MessageId as string,
      bodyDigest: bodyDigest('{"order":"corrected"}'),
      attemptLimit: 3,
      replayOf: collided.id,
      now: new Date(),
      expiresAt: 1_900_000_000,
    });
    expect(started.started).toBe(true);
  });
});

describe('defect 3: a key-collision record cannot be replayed (an undone replay)', () => {
  it('puts its own item back to quarantined when the send fails, and the next replay resets that item', async () => {
    const other = await cli.quarantine();
    const collided = await cli.quarantine({ collidesWith: other });
    const ownKey = (await cli.records.get(collided.id))?.messageId as string;
    await cli.run('cause', collided.id, 'producer resent a corrected order under the same id');
    const othersItem = await cli.ledger.get(other.messageKey);
    const failing = await deploymentWith(
      new RefusingSend(cli.pipeline.clients.sqs, cli.pipeline.names.sourceQueueUrl),
    );

    await expect(replayOn(failing, collided.id)).rejects.toThrow(/SendMessage failed/);
    const undone = await cli.ledger.get(ownKey);
    const again = await cli.run('replay', collided.id);

    expect(undone).toMatchObject({ state: 'quarantined', quarantineId: collided.id, generation: 1 });
    expect((await cli.records.get(collided.id))?.status).toBe('replayed');
    expect(again).toMatchObject({ code: 0, stderr: '' });
    expect(await cli.ledger.get(ownKey)).toMatchObject({
      state: 'ready',
      generation: 2,
      replayOf: collided.id,
    });
    expect(await cli.ledger.get(other.messageKey)).toStrictEqual(othersItem);
    expect(
      (await cli.receive()).map((message) => message.MessageAttributes?.['pq-message-key']?.StringValue),
    ).toStrictEqual([ownKey]);
  });
});

describe("defect 7: replay cannot fit SQS's limits", () => {
  /** What a replay adds to the message: its two attributes, names, types and values in bytes. */
  const replayOverhead = (id: string, messageKey: string) =>
    Buffer.byteLength(`pq-replay-ofString${id}pq-message-keyString${messageKey}`);

  it('refuses a record with 9 message attributes in the dry run and the replay: nothing changes, nothing is sent', async () => {
    const seeded = await cli.quarantine({ messageAttributes: attributes(9) });
    await cli.run('cause', seeded.id, 'partner fixed its feed');
    const before = await cli.records.get(seeded.id);

    const dryRun = await cli.run('replay', seeded.id, '--dry-run');
    const replay = await cli.run('replay', seeded.id);

    const why = 'the replay would carry 11 message attributes: SQS allows 10';
    expect(dryRun.code).toBe(2);
    expect(dryRun.stdout).toMatch(new RegExp(`^${seeded.id} +REFUSED +${why}`, 'm'));
    expect(replay.code).toBe(2);
    expect(replay.stderr).toMatch(
      new RegExp(`^pq replay: refused: record ${seeded.id}: ${why}.*nothing was sent`),
    );
    expect(await cli.records.get(seeded.id)).toStrictEqual(before);
    expect((await cli.ledger.get(seeded.messageKey))?.state).toBe('quarantined');
    expect(await cli.receive()).toStrictEqual([]);
  });

  it('refuses a body that fits SQS alone but not with the replay attributes, counted in bytes', async () => {
    const seeded = await cli.quarantine({ body: 'x'.repeat(MIB - 20) });
    await cli.run('cause', seeded.id, 'partner fixed its feed');

    const dryRun = await cli.run('replay', seeded.id, '--dry-run');
    const replay = await cli.run('replay', seeded.id);

    const bytes = MIB - 20 + replayOverhead(seeded.id, seeded.messageKey);
    expect(dryRun.stdout).toMatch(
      new RegExp(
        `^${seeded.id} +REFUSED +the replay would be ${bytes} bytes .*more than the queue's ${MIB}`,
        'm',
      ),
    );
    expect(replay).toMatchObject({ code: 2, stderr: expect.stringContaining('nothing was sent') });
    expect((await cli.records.get(seeded.id))?.status).toBe('open');
    expect(await cli.receive()).toStrictEqual([]);
  });

  it('replays what fits exactly: 8 attributes of its own and a body up to the byte', async () => {
    const probe = await cli.quarantine();
    const body = 'y'.repeat(
      MIB - replayOverhead(probe.id, probe.messageKey) - Buffer.byteLength('a0Stringv0'),
    );
    const seeded = await cli.quarantine({ body, messageAttributes: attributes(1) });
    const eight = await cli.quarantine({ messageAttributes: attributes(8) });
    // Ids and keys of two seeds have the same length: the overhead is the probe's.
    expect(replayOverhead(seeded.id, seeded.messageKey)).toBe(replayOverhead(probe.id, probe.messageKey));
    for (const { id } of [seeded, eight]) await cli.run('cause', id, 'partner fixed its feed');

    expect(await cli.run('replay', seeded.id, '--dry-run')).toMatchObject({ code: 0 });
    expect(await cli.run('replay', seeded.id)).toMatchObject({ code: 0, stderr: '' });
    expect(await cli.run('replay', eight.id)).toMatchObject({ code: 0, stderr: '' });
    const sent = await cli.receive();
    const counts = sent.map((message) => Object.keys(message.MessageAttributes ?? {}).length);
    expect(counts.sort((a, b) => a - b)).toStrictEqual([3, 10]);
  });
});

describe('SQS rules where moto is laxer: the world refuses what SQS refuses (docs/local-differences.md)', () => {
  const sdkAttributes = (count: number): Record<string, MessageAttributeValue> =>
    Object.fromEntries(
      Array.from({ length: count }, (_, n) => [`a${n}`, { DataType: 'String', StringValue: `v${n}` }]),
    );
  const sendToMoto = (body: string, messageAttributes: Record<string, MessageAttributeValue> = {}) =>
    cli.pipeline.clients.sqs.send(
      new SendMessageCommand({
        QueueUrl: cli.pipeline.names.sourceQueueUrl,
        MessageBody: body,
        MessageAttributes: messageAttributes,
      }),
    );

  it('11 message attributes: moto accepts them, the world refuses (SQS allows 10)', async () => {
    const world = new MemoryQueue(new Clock(), 10);

    await expect(sendToMoto('m', sdkAttributes(11))).resolves.toMatchObject({
      MessageId: expect.any(String),
    });
    expect(() => world.send({ messageId: 'm1', body: 'm', messageAttributes: attributes(11) })).toThrow(
      'Number of message attributes [11] exceeds the allowed maximum [10]',
    );
    world.send({ messageId: 'm2', body: 'm', messageAttributes: attributes(10) });
    expect(world.messages.size).toBe(1);
  });

  it('1 MiB: moto counts the body in characters and no attributes, the world counts body and attributes in bytes', async () => {
    const world = new MemoryQueue(new Clock(), 10);
    const multibyte = 'é'.repeat(MIB / 2 + 1);
    const full = 'x'.repeat(MIB);

    await expect(sendToMoto(multibyte)).resolves.toMatchObject({ MessageId: expect.any(String) });
    await expect(sendToMoto(full, sdkAttributes(1))).resolves.toMatchObject({
      MessageId: expect.any(String),
    });
    expect(() => world.send({ messageId: 'm1', body: multibyte })).toThrow(`shorter than ${MIB} bytes`);
    expect(() => world.send({ messageId: 'm2', body: full, messageAttributes: attributes(1) })).toThrow(
      `shorter than ${MIB} bytes`,
    );
    world.send({ messageId: 'm3', body: full });
    expect(world.messages.size).toBe(1);
  });

  it('FIFO deduplication: moto forgets an id once its message is deleted, the world keeps it 5 minutes', async () => {
    const queueUrl = await fifoQueue();
    const send = () =>
      cli.pipeline.clients.sqs.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: 'm',
          MessageGroupId: 'g',
          MessageDeduplicationId: 'd-1',
        }),
      );
    const clock = new Clock();
    const world = new MemoryQueue(clock, 10, { fifo: true });
    /** Each send has its own message id, as SQS gives one; a deduplicated send reports the first's. */
    const sendToWorld = (messageId: string) =>
      world.send({ messageId, body: 'm', deduplicationId: 'd-1', groupId: 'g' });
    await send();
    const [first] = await receiveFrom(queueUrl);
    await cli.pipeline.clients.sqs.send(
      new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: first?.ReceiptHandle }),
    );
    await send();
    expect(await receiveFrom(queueUrl)).toHaveLength(1);

    expect(sendToWorld('m1')).toBe('m1');
    const [received] = world.receive(1, 30);
    world.delete(received?.receiptHandle as string);
    expect(sendToWorld('m2')).toBe('m1');
    clock.advance(299_999);
    expect(sendToWorld('m3')).toBe('m1');
    expect(world.receive(1, 30)).toStrictEqual([]);
    clock.advance(1);
    expect(sendToWorld('m4')).toBe('m4');
    expect(world.receive(1, 30).map((message) => message.messageId)).toStrictEqual(['m4']);
  });
});
