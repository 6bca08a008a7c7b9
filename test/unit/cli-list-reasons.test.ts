/**
 * Issue 22, defect 12: `pq list --reason` takes every reason the consumer can write. The core's
 * reason type is derived from the contract's list (contract/quarantine.ts), so TypeScript holds
 * the consumer to that list; this test holds `pq` to it.
 */
import { describe, expect, it } from 'vitest';
import { parseCommandArgs } from '../../cli/arguments';
import type { CommandContext } from '../../cli/command';
import { list } from '../../cli/commands/list';
import type { Deployment } from '../../cli/deployment';
import { NO_PROGRESS } from '../../cli/progress';
import { QUARANTINE_REASONS, QUARANTINE_STATUS } from '../../contract/quarantine';
import type { QuarantineRecord } from '../../lambdas/core/quarantine-record';

/** One open record of each reason the core can produce. */
const RECORDS = QUARANTINE_REASONS.map(
  (reason, index) =>
    ({
      id: `q-${reason}`,
      status: QUARANTINE_STATUS.open,
      reason,
      cause: 'unidentified',
      messageKey: `key-${index}`,
      messageId: `message-${index}`,
      generation: 0,
      attemptsStarted: 1,
      attemptsCharged: 0,
      stage: 'started',
      errorSignature: 'Error',
      firstAttemptAt: '2030-01-01T00:00:00.000Z',
      lastAttemptAt: '2030-01-01T00:00:00.000Z',
      createdAt: `2030-01-01T00:00:0${index}.000Z`,
      sourceQueueArn: 'arn:aws:sqs:eu-west-1:111111111111:orders',
      bodyKey: `quarantine/q-${reason}/body`,
      envelopeKey: `quarantine/q-${reason}/envelope.json`,
      bodyBytes: 2,
      audit: [],
    }) satisfies QuarantineRecord,
);

/** `pq list ARGS` against a deployment whose open records are RECORDS. */
function listWith(...argv: string[]) {
  const deployment = {
    records: {
      list: async ({ status }: { status: string }) => (status === QUARANTINE_STATUS.open ? RECORDS : []),
    },
  } as unknown as Deployment;
  const context: CommandContext = {
    args: parseCommandArgs(argv, list.options),
    deployment: async () => deployment,
    actor: async () => {
      throw new Error('pq list acts as nobody');
    },
    now: () => new Date('2030-01-02T00:00:00.000Z'),
    sleep: async () => {},
    progress: () => NO_PROGRESS,
  };
  return list.run(context);
}

describe('issue 22 defect 12: pq list --reason refuses reasons the consumer writes', () => {
  it.each(QUARANTINE_REASONS.map((reason) => [reason]))(
    'given --reason %s, then it lists exactly the records of that reason',
    async (reason) => {
      const result = await listWith('--reason', reason);
      const { records } = result.json as { records: QuarantineRecord[] };
      expect(records.map((record) => record.id)).toStrictEqual([`q-${reason}`]);
    },
  );

  it('names every reason in its help', () => {
    const help = list.help.replace(/\s+\|?\s*/g, ' ');
    for (const reason of QUARANTINE_REASONS) expect(help).toContain(reason);
  });
});
