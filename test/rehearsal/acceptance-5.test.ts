/**
 * Acceptance 5 (rules 3 and 4): a quarantined message's content is readable by an operator,
 * byte for byte, through the operator's read path (QuarantineRecords), and nothing replays it:
 * after several visibility timeouts the queue is still empty and no new attempt has started.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QuarantineRecord } from '../../lambdas/core/quarantine-record';
import { demoBody, startTestPipeline, type TestPipeline, waitUntilSettled } from './support';

// 3 s: a quarantine (the ledger's intent, two S3 puts, the record, the mark) finishes well inside
// it on a loaded runner. Killed half-way, the redelivery would finish it (one record either way),
// but the attempts this test counts would then include the redelivery's.
const CONSUMER_TIMEOUT_SECONDS = 3;
const VISIBILITY_MS = CONSUMER_TIMEOUT_SECONDS * 6 * 1000;

/**
 * Valid JSON for the demo (it throws PermanentError: quarantined at once), written the way no
 * serializer would: CR LF and a tab between tokens, non-ASCII text, an astral-plane emoji and
 * trailing spaces. Re-encoding it anywhere would change its bytes.
 */
const BODY = '{"id":"Q1", "behaviour":"throw-permanent",\r\n\t"note":"héllo ✓ 😀 — ünïcödé"}  ';

let test: TestPipeline;
let messageId: string;
let record: QuarantineRecord;

beforeAll(async () => {
  test = await startTestPipeline({ consumerTimeoutSeconds: CONSUMER_TIMEOUT_SECONDS });
  // A healthy neighbour, so "nothing replayed" is not just an idle consumer.
  const neighbour = await test.probe.send(demoBody('N1', 'succeed'));
  messageId = await test.probe.send(BODY);
  await waitUntilSettled(test.probe, [neighbour, messageId]);
  const [open] = (await test.probe.quarantine.list({ status: 'open' })).filter(
    (candidate) => candidate.messageKey === messageId,
  );
  record = open;
});
afterAll(async () => {
  await test?.stop();
});

describe('a quarantined message, as an operator reads it', () => {
  it('has a record with its reason, evidence and no cause yet', async () => {
    expect(record).toBeDefined();
    const byId = await test.probe.quarantine.get(record.id);
    expect(byId).toMatchObject({
      id: record.id,
      status: 'open',
      reason: 'permanent-error',
      cause: 'unidentified',
      messageKey: messageId,
      messageId,
      bodyBytes: Buffer.byteLength(BODY, 'utf8'),
      lastError: { class: 'permanent', name: 'PermanentError' },
      audit: [],
    });
  });

  it("names where it failed in the source, through the bundle's source map, and groups by that place", async () => {
    // The consumer runs as deployed: split ES modules mapping their own stack traces (issue 24).
    const [frame] = (record.lastError?.stackHead ?? '').split('\n');
    expect(frame).toMatch(/^at \S+ \(\/.*\/lambdas\/demo\/worker\.ts:\d+:\d+\)$/);
    expect(record.errorSignature).toBe(
      `permanent | PermanentError | ${frame?.replace(/:\d+:\d+\)$/, ')')} | demo: permanent failure of Q#`,
    );
  });

  it('gives back the body byte for byte, non-ASCII text and odd whitespace included', async () => {
    const body = await test.probe.quarantine.readBody(record.id);
    expect(body.equals(Buffer.from(BODY, 'utf8'))).toBe(true);
    expect(body.toString('utf8')).toBe(BODY);
    const envelope = await test.probe.quarantine.readEnvelope(record.id);
    expect(envelope).toMatchObject({ messageId, reason: 'permanent-error', quarantineId: record.id });
  });

  it(
    'is not replayed: after 3 visibility timeouts the queue is empty and no new attempt started',
    async () => {
      const invocations = test.invocationsOf(messageId).length;
      await new Promise((resolve) => setTimeout(resolve, 3 * VISIBILITY_MS + 1_000));
      expect(await test.probe.queueDepth()).toMatchObject({ total: 0 });
      // The attempts the record counted are all there are: none started since.
      expect(await test.probe.ledger.get(messageId)).toMatchObject({
        state: 'quarantined',
        attempts: record.attemptsStarted,
        quarantineId: record.id,
      });
      expect(test.invocationsOf(messageId)).toHaveLength(invocations);
      expect(await test.probe.quarantine.get(record.id)).toMatchObject({ status: 'open', audit: [] });
      expect(await test.probe.quarantineRecords()).toHaveLength(1);
    },
    3 * VISIBILITY_MS + 20_000,
  );
});
