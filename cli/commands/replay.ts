/** `pq replay`: send quarantined messages back to the source queue (or Kafka topic), with a fresh budget. */

import { decideReplay, decideResume, REPLAY_RUNNING_AT_MOST_MINUTES } from '../../lambdas/core/operator';
import type { QuarantineRecord } from '../../lambdas/core/quarantine-record';
import { ownIdentity, replayKeyOf } from '../../lambdas/core/replay-message';
import { positionals, positiveNumber, requiredReason } from '../arguments';
import type { Command, CommandContext, CommandResult } from '../command';
import type { Deployment } from '../deployment';
import { NotFound, Refused, UsageError } from '../errors';
import {
  describeProduce,
  type KafkaProduceSummary,
  produceSummary,
  REPLAY_TOPIC_OPTION,
  replayTopicOption,
} from '../kafka-replay';
import { table } from '../output';
import { pacedDuration, pacer } from '../pacing';
import {
  type ReplayReceipt,
  type ResumeReceipt,
  replayMessage,
  replayRecord,
  resumeReplay,
} from '../replay-flow';
import { actOnGroup, isRefusal, type MemberRefusal, unresolvedInGroup } from './group-members';

export const replay: Command = {
  name: 'replay',
  options: {
    group: { type: 'string' },
    reason: { type: 'string' },
    resume: { type: 'boolean' },
    'dry-run': { type: 'boolean' },
    rate: { type: 'string' },
    [REPLAY_TOPIC_OPTION]: { type: 'string' },
  },
  help: `pq replay - send quarantined messages back to the source queue (or Kafka topic)

Usage: pq replay ID [--reason "why now"] [--dry-run] [--replay-topic TOPIC]
       pq replay --group GROUP [--reason "why now"] [--rate N] [--dry-run] [--replay-topic TOPIC]
       pq replay ID --resume --reason "why"      (a replay that broke half-way)

Replay is refused (exit 2, nothing changes) when:
  - no cause is recorded for the record: pq cause ID "..." first (rule 12);
  - replay is frozen: pq status shows who froze it and why (pq unfreeze);
  - the record is awaiting-operator (outcome unknown): check the outside system and use
    pq verify ID --done | --not-done | --discard instead;
  - the record is not open (already replayed, resolved, or being replayed by someone else);
  - the message cannot carry the replay's two attributes within SQS's limits (10 message
    attributes; the queue's maximum size, body plus attributes, in bytes): pq show ID
    --body-out FILE keeps it for a send of your own.

What it does: marks the record "replaying" (so two people cannot replay it twice), gives the
message a fresh attempt budget in the ledger, sends the exact body with its message attributes
(and FIFO group) and the attribute pq-replay-of=ID, then marks the record "replayed" with an
audit entry (you, now, --reason or the recorded cause). If the fix is not deployed yet, the
message will fail and be quarantined again under a new id. A key-collision record (a message
that arrived under another message's key) is sent as its own message, under its SQS message id
as key: the other message's ledger item is left alone. Into a FIFO queue every replay sends a
deduplication id of its own, so a replay after an undone one is not dropped by SQS.

A Kafka consumer's record is produced instead: its exact key, value bytes and headers (in order,
repeats kept), plus the headers pq-replay-of=ID and pq-message-key=its ledger key, to its own
topic and partition, acknowledged by every in-sync replica, under the same claim, fresh budget
and audit. It gets a new offset and timestamp; the new record's topic-partition-offset is printed.
  --replay-topic TOPIC   produce to TOPIC instead (where the key's partitioner puts it): the
               consumer works on the replay under the original's key only if it reads TOPIC
pq connects as the consumer's event source mapping does: the mapping's secret (SASL/SCRAM or
SASL/PLAIN, over TLS), MSK IAM without one, or no authentication; an MSK cluster's brokers from
kafka:GetBootstrapBrokers, a self-managed one's from PQ_KAFKA_CLUSTER, or --kafka-bootstrap
HOST:PORT[,...] (a global option) instead. A CA of your own: NODE_EXTRA_CA_CERTS=FILE. Refused
when the topic or partition does not exist (a replay never creates one). A cluster that cannot be
reached, refuses the credentials or refuses the record (too large, not authorised), or a mapping
pq cannot authenticate as (mTLS), fails (exit 1) and changes nothing: the record stays open, its
ledger item quarantined, with a replay-aborted audit entry when it failed after the claim.

--group replays every open record of the group (pq list --group); records without a cause are
skipped and reported (exit 2).
  --rate N     at most N messages a second (0.5 = one every 2 s), evenly spaced, so the consumer
               and what it calls are not hit by the whole group at once
  --dry-run    lists what would be replayed and what refused, by the same rules; changes nothing
               and sends nothing (exit 2 if some would be refused)

--resume settles a record that a broken replay (killed, or cut off) left "replaying", once
that replay started ${REPLAY_RUNNING_AT_MOST_MINUTES} minutes ago or more. A send that timed out may or may not
have gone out; resume never sends, and never assumes it did: the attempts ledger decides.
  - the consumer picked the replay up: the record becomes "replayed";
  - otherwise: the record is open again, and pq replay ID sends it. If the ledger was already
    reset, it is put back first, so a copy the broken replay may have sent, still waiting in
    the queue, is acknowledged without running: only your next replay runs.
Either way the audit records you, the reason and what the ledger showed.`,
  async run(context: CommandContext) {
    const { args } = context;
    const group = args.string('group');
    const dryRun = args.flag('dry-run');
    const rateText = args.string('rate');
    if (args.flag('resume')) {
      if (group !== undefined) throw new UsageError('--resume takes one ID, not --group');
      if (dryRun || rateText !== undefined) throw new UsageError('--resume takes no --dry-run or --rate');
      if (args.string(REPLAY_TOPIC_OPTION) !== undefined)
        throw new UsageError('--resume takes no --replay-topic: it never sends');
      return resume(context);
    }
    if (rateText !== undefined && group === undefined) {
      throw new UsageError(`--rate paces a --group replay; one ID is one message (given --rate ${rateText})`);
    }
    const rate = rateText === undefined ? undefined : positiveNumber('rate', rateText, 'messages per second');
    const [id] = group === undefined ? positionals(args, ['ID']) : positionals(args, []);
    const deployment = await context.deployment();
    try {
      return await replayOrDryRun(context, deployment, { id, group, dryRun, rate });
    } finally {
      await deployment.kafka?.close();
    }
  },
};

async function replayOrDryRun(
  context: CommandContext,
  deployment: Deployment,
  options: {
    readonly id: string | undefined;
    readonly group: string | undefined;
    readonly dryRun: boolean;
    readonly rate: number | undefined;
  },
): Promise<CommandResult> {
  const { id, group, dryRun, rate } = options;
  const replayTopic = replayTopicOption(deployment, context.args.string(REPLAY_TOPIC_OPTION));
  // A Kafka consumer's brokers must be known (a UsageError says what to pass) before anything is read.
  deployment.kafka?.topics();
  const { replayFrozen } = await deployment.control.snapshot();
  if (group === undefined) {
    const record = await deployment.records.get(id ?? '');
    if (record === undefined) throw new NotFound(`no quarantine record ${id} (pq list shows the ids)`);
    if (dryRun) return dryRunOf(deployment, [record], replayFrozen, rate, replayTopic);
    const receipt = await replayOne(context, deployment, record, replayFrozen, replayTopic);
    if (isRefusal(receipt)) throw new Refused(`record ${record.id}: ${receipt.refused}`);
    return { json: receipt, text: `${describeReceipt(receipt, deployment.kafka !== undefined)}\n` };
  }
  if (replayFrozen) throw new Refused('replay is frozen for this pipeline (see status; unfreeze first)');
  const members = await unresolvedInGroup(deployment, group);
  if (dryRun) return dryRunOf(deployment, members, replayFrozen, rate, replayTopic);
  const pace = rate === undefined ? undefined : pacer(rate, context);
  return actOnGroup(
    members,
    { verb: 'replayed', detail: (done: ReplayReceipt) => `as message ${done.messageId}` },
    (record) => replayOne(context, deployment, record, replayFrozen, replayTopic, pace),
    context.progress('replayed'),
  );
}

/**
 * `--dry-run`: the decisions the replay would make, in the table it would print. Only the records,
 * their content and the queue's size limit are read: nothing is claimed, reset or sent, and no
 * identity is asked for.
 */
async function dryRunOf(
  deployment: Deployment,
  members: readonly QuarantineRecord[],
  replayFrozen: boolean,
  rate: number | undefined,
  replayTopic: string | undefined,
): Promise<CommandResult> {
  const outcomes: DryRunOutcome[] = [];
  for (const record of members)
    outcomes.push(await dryRunOutcome(deployment, record, replayFrozen, replayTopic));
  const refused = outcomes.filter(isRefusal).length;
  const wouldReplay = outcomes.length - refused;
  const rows = outcomes.map((outcome) =>
    isRefusal(outcome)
      ? [outcome.id, 'REFUSED', outcome.refused]
      : [
          outcome.id,
          'would replay',
          `cause: ${outcome.cause}${identityNote(outcome)}${produceNote(outcome)}`,
        ],
  );
  const paced =
    rate === undefined || wouldReplay < 2
      ? ''
      : `, at ${rate} a second over about ${pacedDuration(wouldReplay, rate)}`;
  const summary = `Dry run: ${wouldReplay} of ${outcomes.length} would be replayed${paced}. Nothing was changed.\n`;
  return {
    json: { dryRun: true, wouldReplay, outcomes },
    text: table(['ID', 'RESULT', 'DETAIL'], rows) + summary,
    ...(refused > 0
      ? { refusal: `${refused} of ${outcomes.length} records would be refused (see the table)` }
      : {}),
  };
}

type DryRunOutcome =
  | MemberRefusal
  | {
      readonly id: string;
      readonly cause: string;
      readonly ownKey?: string;
      readonly otherKey?: string;
      /** A Kafka replay: what it would produce, and where. */
      readonly produce?: KafkaProduceSummary;
    };

async function dryRunOutcome(
  deployment: Deployment,
  record: QuarantineRecord,
  replayFrozen: boolean,
  replayTopic: string | undefined,
): Promise<DryRunOutcome> {
  const decision = decideReplay(record, { replayFrozen });
  if (decision.kind === 'refuse') return { id: record.id, refused: decision.reason };
  const message = await replayMessage(deployment, record, replayTopic);
  if ('refused' in message) return { id: record.id, refused: message.refused };
  return {
    id: record.id,
    cause: record.cause,
    ...(ownIdentity(record) ? { ownKey: replayKeyOf(record), otherKey: record.messageKey } : {}),
    ...(message.kind === 'kafka' ? { produce: produceSummary(message) } : {}),
  };
}

function produceNote(outcome: Exclude<DryRunOutcome, MemberRefusal>): string {
  return outcome.produce === undefined ? '' : `; ${describeProduce(outcome.produce)}`;
}

/** A key-collision record is replayed as its own message: say so, and whose item stays as it is. */
function identityNote(outcome: Exclude<DryRunOutcome, MemberRefusal>): string {
  return outcome.ownKey === undefined
    ? ''
    : `; as its own message (key ${outcome.ownKey}), the ledger item of ${outcome.otherKey} is left alone`;
}

async function replayOne(
  context: CommandContext,
  deployment: Deployment,
  record: QuarantineRecord,
  replayFrozen: boolean,
  replayTopic: string | undefined,
  pace?: () => Promise<void>,
): Promise<ReplayReceipt | MemberRefusal> {
  const decision = decideReplay(record, { replayFrozen });
  if (decision.kind === 'refuse') return { id: record.id, refused: decision.reason };
  const message = await replayMessage(deployment, record, replayTopic);
  if ('refused' in message) return { id: record.id, refused: message.refused };
  // Only sends take a slot: a refused member costs no wait.
  await pace?.();
  const actor = await context.actor(context.args.string('reason') ?? `cause: ${record.cause}`);
  return replayRecord(deployment, record, message, 'replay', actor);
}

async function resume(context: CommandContext): Promise<CommandResult> {
  const [id] = positionals(context.args, ['ID']);
  const why = requiredReason(context.args);
  const deployment = await context.deployment();
  const record = await deployment.records.get(id ?? '');
  if (record === undefined) throw new NotFound(`no quarantine record ${id} (pq list shows the ids)`);
  const ledger = await deployment.ledger.get(replayKeyOf(record));
  const plan = decideResume(record, ledger, context.now());
  if (plan.kind === 'refuse') throw new Refused(`record ${record.id}: ${plan.reason}`);
  const actor = await context.actor(why);
  const receipt = await resumeReplay(deployment, record, ledger, plan, actor);
  return { json: receipt, text: `${describeResume(receipt)}\n` };
}

function describeReceipt(receipt: ReplayReceipt, kafka: boolean): string {
  const as = kafka ? 'Kafka record' : 'message';
  return `Replayed ${receipt.id} as ${as} ${receipt.messageId} (ledger generation ${receipt.generation}: a fresh attempt budget). Status: replayed.`;
}

function describeResume({ id, resumed, evidence }: ResumeReceipt): string {
  return resumed === 'finish'
    ? `Recorded ${id} as replayed: ${evidence}. Status: replayed.`
    : `Released ${id}: ${evidence}. Status: open (pq replay ${id} sends it again).`;
}
