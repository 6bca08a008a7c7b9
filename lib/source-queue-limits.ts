/**
 * What the consumer needs of its source queue, checked alike for the queue the construct creates
 * and for one the user brings: a visibility timeout of at least 6x the consumer timeout (a crash
 * is seen only when its message comes back), and a redrive to the backstop late enough to leave
 * the ledger its budgets. The consumer is told the queue's real redrive limit: on a record's last
 * receive it quarantines what it would otherwise hand to the backstop (lambdas/core/receive-limit.ts).
 */
import { Annotations, type Duration, Token } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { DEFAULTS } from '../contract/defaults';

/** The props these checks read (lib/poison-quarantine-props.ts documents them). */
export interface SourceQueueSettings {
  readonly queue?: sqs.IQueue;
  readonly fifo?: boolean;
  readonly visibilityTimeout?: Duration;
  readonly backstopMaxReceiveCount?: number;
  readonly backstopQueue?: sqs.IQueue;
  readonly attemptLimit?: number;
  readonly transientRetries?: number;
}

/** SQS's visibility timeout of a queue created without one. */
const SQS_DEFAULT_VISIBILITY_SECONDS = 30;
/** SQS's limits of a redrive policy's maxReceiveCount and of a visibility timeout. */
const SQS_MAX_RECEIVE_COUNT = 1000;
const SQS_MAX_VISIBILITY_SECONDS = 43_200;

const known = (value: number | undefined) =>
  value === undefined || Token.isUnresolved(value) ? undefined : value;

/** The fewest receives a redrive may allow, and what it is made of; unknown while a part is a Token. */
function minimumReceives(props: SourceQueueSettings): { count: number; sum: string } | undefined {
  const attemptLimit = known(props.attemptLimit ?? DEFAULTS.attemptLimit);
  const transientRetries = known(props.transientRetries ?? DEFAULTS.transientRetries);
  if (attemptLimit === undefined || transientRetries === undefined) return undefined;
  return {
    count: attemptLimit + transientRetries + DEFAULTS.backstopReceiveMargin,
    sum: `attemptLimit ${attemptLimit} + transientRetries ${transientRetries} + ${DEFAULTS.backstopReceiveMargin}`,
  };
}

/** The redrive policy of a queue CDK knows (one of the app's stacks); undefined for an imported one. */
function knownRedrive(queue: sqs.IQueue | undefined): sqs.DeadLetterQueue | undefined {
  return queue instanceof sqs.Queue ? queue.deadLetterQueue : undefined;
}

/**
 * The receive count SQS redrives at, which the consumer must quarantine by: a given queue's own
 * when CDK knows it, else the prop (required for an imported queue), else the created queue's
 * default, raised to the minimum when the budgets need more.
 */
export function backstopMaxReceiveCount(props: SourceQueueSettings): number {
  return (
    knownRedrive(props.queue)?.maxReceiveCount ??
    props.backstopMaxReceiveCount ??
    Math.max(DEFAULTS.backstopMaxReceiveCount, minimumReceives(props)?.count ?? 0)
  );
}

/** Every problem of the source queue settings, each naming the value given. */
export function sourceQueueProblems(
  props: SourceQueueSettings,
  consumerTimeout: number | undefined,
): string[] {
  const minimumVisibility = (consumerTimeout ?? 0) * DEFAULTS.visibilityTimeoutFactor;
  if (props.queue === undefined) {
    return [
      ...backstopQueueProblems(props),
      ...visibilityProblems(
        'visibilityTimeout',
        known(props.visibilityTimeout?.toSeconds()),
        minimumVisibility,
        consumerTimeout,
      ),
      ...receiveCountProblems(props),
    ];
  }
  const settings = (['fifo', 'visibilityTimeout'] as const).filter((name) => props[name] !== undefined);
  const errors =
    settings.length > 0
      ? [`give either queue or queue settings, not both (given queue and ${settings.join(', ')})`]
      : [];
  if (!(props.queue instanceof sqs.Queue)) return [...errors, ...importedQueueProblems(props)];
  const visibility = (props.queue.node.defaultChild as sqs.CfnQueue).visibilityTimeout;
  errors.push(
    ...visibilityProblems(
      "the queue's visibility timeout",
      known(visibility ?? SQS_DEFAULT_VISIBILITY_SECONDS),
      minimumVisibility,
      consumerTimeout,
    ),
  );
  const redrive = knownRedrive(props.queue);
  return [
    ...errors,
    ...backstopQueueProblems(props),
    ...(redrive === undefined ? receiveCountProblems(props) : redriveProblems(props, redrive)),
  ];
}

/**
 * The backstop the construct knows: the one it created, the redrive target of a queue of the
 * app's stacks, or the one named for an imported queue; undefined when it knows none.
 */
export function knownBackstop(props: SourceQueueSettings): sqs.IQueue | undefined {
  return props.backstopQueue ?? knownRedrive(props.queue)?.queue;
}

/** `backstopQueue` names a given queue's dead-letter queue, and no other. */
function backstopQueueProblems(props: SourceQueueSettings): string[] {
  const named = props.backstopQueue;
  if (named === undefined) return [];
  if (props.queue === undefined) {
    return [
      `backstopQueue names the dead-letter queue of a given queue; the created queue has its own (given backstopQueue ${named.node.path} and no queue)`,
    ];
  }
  const target = knownRedrive(props.queue)?.queue;
  return target === undefined || target === named
    ? []
    : [
        `backstopQueue must be the queue's redrive target ${target.node.path} or left out (given ${named.node.path})`,
      ];
}

function visibilityProblems(
  name: string,
  visibility: number | undefined,
  minimum: number,
  consumerTimeout: number | undefined,
): string[] {
  if (visibility === undefined) return [];
  const errors: string[] = [];
  if (visibility < minimum) {
    errors.push(
      `${name} must be at least ${DEFAULTS.visibilityTimeoutFactor}x consumerTimeout ` +
        `(given visibilityTimeout ${visibility} s, consumerTimeout ${consumerTimeout} s)`,
    );
  }
  if (visibility > SQS_MAX_VISIBILITY_SECONDS) {
    errors.push(`${name} must be at most ${SQS_MAX_VISIBILITY_SECONDS} seconds (given ${visibility} s)`);
  }
  return errors;
}

/** The prop, where it states the limit: for the created queue, or a given one without a known redrive. */
function receiveCountProblems(props: SourceQueueSettings): string[] {
  const given = known(props.backstopMaxReceiveCount);
  if (given === undefined) return [];
  const minimum = minimumReceives(props);
  const floor = minimum === undefined ? '1' : `${minimum.count} (${minimum.sum})`;
  const valid = Number.isInteger(given) && given >= (minimum?.count ?? 1) && given <= SQS_MAX_RECEIVE_COUNT;
  return valid
    ? []
    : [
        `backstopMaxReceiveCount must be an integer from ${floor} to ${SQS_MAX_RECEIVE_COUNT} (given ${given})`,
      ];
}

/** CDK knows the queue's redrive: the prop may only repeat it, and it must leave the budgets room. */
function redriveProblems(props: SourceQueueSettings, redrive: sqs.DeadLetterQueue): string[] {
  const errors: string[] = [];
  const given = props.backstopMaxReceiveCount;
  if (given !== undefined && given !== redrive.maxReceiveCount) {
    errors.push(
      `backstopMaxReceiveCount must be the queue's redrive maxReceiveCount or left out (given ${given}, the queue's ${redrive.maxReceiveCount})`,
    );
  }
  const minimum = minimumReceives(props);
  const count = known(redrive.maxReceiveCount);
  if (minimum !== undefined && count !== undefined && count < minimum.count) {
    errors.push(
      `the queue's redrive maxReceiveCount must be at least ${minimum.count} (${minimum.sum}) (given ${count})`,
    );
  }
  return errors;
}

/** An imported queue's redrive policy is not in the app: the user states its maxReceiveCount. */
function importedQueueProblems(props: SourceQueueSettings): string[] {
  if (props.backstopMaxReceiveCount !== undefined) return receiveCountProblems(props);
  const queue = props.queue as sqs.IQueue;
  const name = Token.isUnresolved(queue.queueArn) ? queue.node.path : queue.queueArn;
  return [
    `an imported queue needs backstopMaxReceiveCount, its redrive policy's maxReceiveCount, which CDK cannot read (given queue ${name} and no backstopMaxReceiveCount)`,
  ];
}

/** An imported queue's visibility timeout cannot be read at synth: the user is told what it must be. */
export function warnUncheckedVisibility(
  scope: Construct,
  props: SourceQueueSettings,
  consumerTimeout: number,
): void {
  if (props.queue === undefined || props.queue instanceof sqs.Queue) return;
  const factor = DEFAULTS.visibilityTimeoutFactor;
  const minimum = Token.isUnresolved(consumerTimeout)
    ? `${factor}x consumerTimeout`
    : `${consumerTimeout * factor} s (${factor}x consumerTimeout ${consumerTimeout} s)`;
  Annotations.of(scope).addWarningV2(
    'poison-quarantine:importedQueueVisibility',
    `the visibility timeout of an imported queue cannot be checked at synth: it must be at least ${minimum}`,
  );
}
