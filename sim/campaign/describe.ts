/**
 * A schedule in a few human lines, for the text report: the settings that differ from the
 * defaults, each message's scripts, the events. The JSON stays the replayable truth.
 */
import type { Step } from '../world/scripted-processor';
import type { CampaignEvent, MessageSpec, Schedule } from './schedule';

export function describeSchedule(schedule: Schedule): string[] {
  const { config } = schedule;
  const settings = [
    `limit ${config.attemptLimit}`,
    `concurrency ${config.concurrency}`,
    `batch ${config.batchSize}`,
    `trial ${config.isolationTrialMessages}`,
    `threshold ${config.outageThreshold}`,
    `transient retries ${config.transientRetries}`,
    ...(config.messageKeyPath ? [`key ${config.messageKeyPath}`] : []),
  ].join(', ');
  const messages = schedule.messages.map(
    (message) =>
      `${message.id}${describeRecord(message)}: ${message.scripts.length === 0 ? 'completes' : message.scripts.map(describeScript).join(' | ')}`,
  );
  return [
    ...(schedule.kafka === undefined
      ? []
      : [
          `Kafka topic of ${schedule.kafka.partitions} partition(s)${schedule.kafka.partialBatchResponse === true ? ', partial batch responses (provisioned mode)' : ''}`,
        ]),
    settings,
    ...messages,
    `events: ${schedule.events.map(describeEvent).join('; ') || 'none'} ; drain`,
  ];
}

/** A Kafka record's partition, and what its value and headers are when not plain text. */
function describeRecord(message: MessageSpec): string {
  if (message.partition === undefined) return '';
  const details = [
    `partition ${message.partition}`,
    ...(message.bytes === undefined ? [] : ['value no UTF-8']),
    ...(message.recordKey === undefined ? [] : [`key ${message.recordKey}`]),
    ...(message.headers === undefined ? [] : [`${message.headers.length} header(s)`]),
  ];
  return ` (${details.join(', ')})`;
}

function describeScript(script: readonly Step[]): string {
  if (script.length === 0) return '[]';
  return `[${script.map(describeStep).join(', ')}]`;
}

function describeStep(step: Step): string {
  switch (step.do) {
    case 'stage':
      return `stage ${step.name}`;
    case 'external':
      return `${step.name}${step.idempotencyKey ? '(idempotent)' : ''} ${step.result}`;
    case 'throw':
      return `throw ${step.error}`;
    case 'crash':
      return 'crash';
    case 'work':
      return `work ${step.ms}ms`;
  }
}

function describeEvent(event: CampaignEvent): string {
  switch (event.do) {
    case 'poll':
      return `poll env${event.env}`;
    case 'poll-pair':
    case 'poll-many':
      return `poll ${event.envs.map((env) => `env${env}`).join('+')}`;
    case 'pollers':
      return `${event.envs} pollers for ${event.seconds}s`;
    case 'advance':
      return `+${event.seconds}s`;
    case 'expire':
      return 'expire';
    case 'duplicate':
      return `duplicate m${event.message + 1}`;
    case 'fault':
      return `${event.point} ${event.kind} x${event.times}${event.message === undefined ? '' : ` (m${event.message + 1})`}`;
    case 'outside-outage':
      return `outside ${event.mode} ${event.seconds}s`;
    case 'table-outage':
      return `ledger throttled ${event.seconds}s`;
    case 'redeploy':
      return `redeploy limit ${event.attemptLimit}`;
    case 'replay':
      return event.withoutCause ? 'operator replays, no cause given' : 'operator replays';
    case 'answer':
      return `operator answers ${event.decision}`;
    case 'resume':
      return 'operator resumes';
    case 'kill-verification':
      return 'the oldest running outcome-unknown execution ends unanswered';
    case 'kill-pause':
      return 'the oldest running pause execution fails';
    case 'pause-runs-fail':
      return `pause runs fail ${event.at} for ${event.seconds}s`;
    case 'poll-partitions':
      return `poll ${event.invocations.map(({ env, partitions }) => `env${env}[${partitions.map((p) => `p${p}`).join('+')}]`).join(' ')}`;
    case 'rebalance':
      return `rebalance p${event.partition} from env${event.env} to env${event.to} after ${event.afterMs}ms`;
  }
}
