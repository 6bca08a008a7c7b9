/**
 * Runs scenarios end to end, each on its own local pipeline (its own moto on its own port):
 * start, send the messages in order, watch the consumer and the runner, wait until every message
 * has settled, then observe the outcome from the AWS state itself (observe.ts). Progress goes to
 * the `progress` callback (stderr in main.ts); every pipeline started is stopped, whatever happens.
 */
import { Duration } from 'aws-cdk-lib';
import type { ObservedRunner } from '../../tools/local-aws/runner';
import { type ConsumerLog, type Death, watchConsumerLog } from '../consumer-log';
import { DemoAssembly } from '../demo-assembly';
import type { FaultFiring } from '../faults/fault-run';
import { type LocalPipeline, type LocalTarget, startLocalPipeline } from '../local-pipeline';
import { IsolationWatch } from './isolation-watch';
import { type Observed, observe } from './observe';
import { type OperatorRun, takeOperatorSteps } from './operator';
import { OutagePlay } from './outage';
import { watchPartitionHolds } from './partition-holds';
import { isTerminal, PipelineProbe, type QueueDepth } from './pipeline-probe';
import { ledgerKeyOf, messageBody, type Scenario, settleTimeoutSeconds } from './scenario';

export interface RunOptions {
  /** One line of progress (no newline). @default - silent */
  readonly progress?: (line: string) => void;
  /** Aborting stops waiting; the pipeline is stopped before `runScenario` settles. */
  readonly signal?: AbortSignal;
  /** Copy the consumer's own log lines to stderr. @default false */
  readonly forwardLogs?: boolean;
  /** Where each pipeline is deployed. @default 'moto' */
  readonly target?: LocalTarget;
  /**
   * What the consumer reads: the demo stack's SQS queue, or a Kafka topic on the embedded broker
   * (as many partitions as the scenario's messages name). @default 'sqs'
   */
  readonly source?: 'sqs' | 'kafka';
}

export interface Settlement {
  /** Every message terminal (completed or quarantined) and the queue empty, within the timeout. */
  readonly settled: boolean;
  readonly timeoutSeconds: number;
  /** Labels whose ledger item is not terminal, with what it shows. */
  readonly unsettled: readonly string[];
  readonly queue: QueueDepth;
}

export interface ScenarioRun {
  readonly scenario: Scenario;
  readonly observed: Observed;
  readonly settlement: Settlement;
  /** Wall time of the pipeline's start (moto, deployment, runner). */
  readonly startupMs: number;
  /** Where the stack was deployed, and the account its deployer reported (LocalStack's is 000000000000). */
  readonly deployedIn?: { readonly target: LocalTarget; readonly accountId: string };
  /** Wall time from the first message sent until settled (or the timeout). */
  readonly runMs: number;
  /** With operator steps: how their consequences settled, and the wall time from the first step. */
  readonly afterOperator?: { readonly settlement: Settlement; readonly runMs: number };
  /** With faults: each of the scenario's faults and how many times it fired over the whole run. */
  readonly faults?: readonly FaultFiring[];
  /** Invocations the runner killed at the consumer timeout, over the whole run (operator steps included). */
  readonly killedAtDeadline: number;
  /** The longest an invocation that answered took, over the whole run: the deadline's margin. */
  readonly slowestAnsweredMs: number;
}

/** Between two looks at the ledger and the queue while waiting. */
const POLL_MS = 250;
/** After the AWS state settled, how long to wait for the consumer's last log lines to arrive. */
const LOG_GRACE_MS = 2_000;
/** How long an operator step waits for its record to await an operator with a stored task token. */
const OPERATOR_WAIT_MS = 60_000;

/** A scenario's run, or why it could not run. */
export type ScenarioOutcome =
  | { readonly scenario: Scenario; readonly run: ScenarioRun; readonly error?: undefined }
  | { readonly scenario: Scenario; readonly run?: undefined; readonly error: Error };

/**
 * Runs several scenarios at once, each on its own pipeline. Every pipeline is up before any
 * message is sent: synthesizing a stack blocks this process for seconds, and the runner's
 * timers live here, so a synth during another scenario's play could make a healthy invocation
 * look timed out. The stacks share one assembly, so the consumer is bundled once.
 */
export async function runScenarios(
  scenarios: readonly Scenario[],
  options: RunOptions = {},
): Promise<ScenarioOutcome[]> {
  const assembly = new DemoAssembly();
  try {
    return await runScenariosIn(assembly, scenarios, options);
  } finally {
    assembly.remove();
  }
}

async function runScenariosIn(
  assembly: DemoAssembly,
  scenarios: readonly Scenario[],
  options: RunOptions,
): Promise<ScenarioOutcome[]> {
  const failed = (scenario: Scenario, error: Error) => {
    say(scenario, options, options.signal?.aborted ? 'interrupted' : `could not run: ${error.message}`);
    return { scenario, error };
  };
  const started = await Promise.all(
    scenarios.map((scenario) =>
      startPipeline(scenario, assembly, options).then(
        (up) => ({ scenario, up }),
        (error: Error) => failed(scenario, error),
      ),
    ),
  );
  return Promise.all(
    started.map(async (entry): Promise<ScenarioOutcome> => {
      if (!('up' in entry)) return entry;
      const { scenario, up } = entry;
      try {
        const run = await play(scenario, up.pipeline, up.startupMs, options);
        // Read before the pipeline stops: stopping removes the fault plan's directory.
        const faults = up.pipeline.faults?.fired();
        return { scenario, run: faults === undefined ? run : { ...run, faults } };
      } catch (error) {
        return failed(scenario, error as Error);
      } finally {
        await up.pipeline.stop();
        say(scenario, options, 'local AWS stopped');
      }
    }),
  );
}

export async function runScenario(scenario: Scenario, options: RunOptions = {}): Promise<ScenarioRun> {
  const [outcome] = await runScenarios([scenario], options);
  if (outcome.error) throw outcome.error;
  return outcome.run;
}

async function startPipeline(scenario: Scenario, assembly: DemoAssembly, options: RunOptions) {
  const started = Date.now();
  say(scenario, options, 'starting the local AWS and deploying the demo stack');
  const pipeline = await startLocalPipeline({
    assembly,
    pipeline: pipelineProps(scenario),
    environments: scenario.environments,
    forwardLogs: options.forwardLogs ?? false,
    target: options.target ?? 'moto',
    ...(options.source === 'kafka' ? { kafka: { partitions: partitionsOf(scenario) } } : {}),
    ...(scenario.faults === undefined
      ? {}
      : { faults: scenario.faults.map((fault) => ({ ...fault, times: fault.times ?? 1 })) }),
  });
  const startupMs = Date.now() - started;
  say(scenario, options, `pipeline up in ${seconds(startupMs)}`);
  return { pipeline, startupMs };
}

/** A topic's partitions for the scenario: the highest one a message names, plus one. */
function partitionsOf(scenario: Scenario): number {
  return Math.max(0, ...scenario.messages.map((message) => message.partition ?? 0)) + 1;
}

async function play(
  scenario: Scenario,
  pipeline: LocalPipeline<ObservedRunner>,
  startupMs: number,
  options: RunOptions,
): Promise<ScenarioRun> {
  throwIfAborted(options.signal);
  const progress = (line: string) => say(scenario, options, line);
  const probe = new PipelineProbe(pipeline);
  /** Ledger key -> label. */
  const labels = new Map<string, string>();
  /** Label -> the SQS messageId of its latest send (a replay is a new one). */
  const sent = new Map<string, string>();
  /** SQS messageId -> label, for the progress lines. */
  const sqsLabels = new Map<string, string>();
  /** Label -> ledger key. */
  const keyOfLabel = new Map<string, string>();
  const log = watchProgress(pipeline, probe, sqsLabels, progress);
  const outage = scenario.outage && new OutagePlay(scenario.outage, pipeline, probe, progress);
  const isolation = IsolationWatch.start(scenario, probe);
  const holds = pipeline.source.kind === 'kafka' ? watchPartitionHolds(pipeline.runner) : undefined;
  try {
    outage?.beforeFirstSend();
    const sentAt = Date.now();
    for (const message of scenario.messages) {
      const messageId = await probe.send(messageBody(message), message.partition);
      sent.set(message.id, messageId);
      sqsLabels.set(messageId, message.id);
      const key = ledgerKeyOf(scenario, message, messageId);
      labels.set(key, message.id);
      keyOfLabel.set(message.id, key);
    }
    progress(`sent ${scenario.messages.length} messages`);
    const keys = [...labels.keys()];
    const logIdOf = (key: string) => sent.get(labels.get(key) ?? '') ?? key;
    const timeoutSeconds = settleTimeoutSeconds(scenario);
    const settlement = await waitUntilSettled(probe, keys, labels, timeoutSeconds, options.signal, {
      pending: outage && (() => outagePending(outage, probe)),
    });
    const runMs = Date.now() - sentAt;
    progress(
      settlement.settled
        ? `settled in ${seconds(runMs)}`
        : `NOT settled after ${settlement.timeoutSeconds} s`,
    );
    await waitForLogLines(log, probe, keys, logIdOf);
    const observeNow = async () => {
      const trials = (await isolation?.trialsSince(sentAt)) ?? [];
      const observed = await observe({
        scenario,
        probe,
        log,
        labels,
        sent,
        outside: pipeline.outside.counts(),
        ...(trials.length === 0 ? {} : { firstTrialAt: sentAt + trials[0].startedAt }),
      });
      const withHolds =
        holds === undefined
          ? observed
          : { ...observed, partitionsHeld: holds.counts(), partitionsHeldWithoutTime: holds.withoutTime() };
      return trials.length === 0 ? withHolds : { ...withHolds, isolation: trials };
    };
    const observed = await observeNow();
    const timeline = await outage?.timeline(log, keys);
    const run: ScenarioRun = {
      scenario,
      observed: timeline === undefined ? observed : { ...observed, timeline },
      settlement,
      startupMs,
      deployedIn: { target: options.target ?? 'moto', accountId: pipeline.stack.accountId },
      runMs,
      killedAtDeadline: killedAtDeadline(log),
      slowestAnsweredMs: log.slowestAnsweredMs(),
    };
    if (scenario.operator === undefined) return run;

    const operatorStarted = Date.now();
    const runs = await takeOperatorSteps(scenario.operator, {
      pipeline,
      probe,
      keyOf: (label) => keyOfLabel.get(label) ?? label,
      waitMs: OPERATOR_WAIT_MS,
      say: progress,
      aborted: () => options.signal?.aborted ?? false,
    });
    for (const { step, replayedAs } of runs) {
      if (replayedAs === undefined) continue;
      sent.set(step.verify, replayedAs);
      sqsLabels.set(replayedAs, `${step.verify} (replay)`);
    }
    // A failed step leaves nothing to wait for: one look, no waiting out the whole timeout.
    const answered = runs.every((operatorRun) => operatorRun.exitCode === 0);
    const afterSettlement = await waitUntilSettled(
      probe,
      keys,
      labels,
      answered ? timeoutSeconds : 0,
      options.signal,
      { pending: () => decisionsPending(runs, probe) },
    );
    const afterMs = Date.now() - operatorStarted;
    progress(
      afterSettlement.settled
        ? `settled after the operator in ${seconds(afterMs)}`
        : `NOT settled after the operator (${afterSettlement.unsettled.join('; ')})`,
    );
    await waitForLogLines(log, probe, keys, logIdOf);
    const afterOperator = await observeNow();
    return {
      ...run,
      observed: { ...run.observed, operator: runs, afterOperator },
      afterOperator: { settlement: afterSettlement, runMs: afterMs },
      killedAtDeadline: killedAtDeadline(log),
      slowestAnsweredMs: log.slowestAnsweredMs(),
    };
  } finally {
    await outage?.stop();
    await isolation?.stop();
    log.close();
    holds?.close();
  }
}

function killedAtDeadline(log: ConsumerLog): number {
  return log.deaths.filter((death) => death.kind === 'timeout').length;
}

/** An outage scenario settles once the outage is over and no pause execution is still running. */
async function outagePending(outage: OutagePlay, probe: PipelineProbe): Promise<string[]> {
  const running = (await probe.executions()).filter(
    (execution) => execution.name.startsWith('pause-') && execution.status === 'RUNNING',
  );
  return [
    ...(outage.over() ? [] : ['the outage is still on']),
    ...running.map((execution) => `${execution.name} still running`),
  ];
}

/** The operator's answers have settled once no record still waits and their executions ended. */
async function decisionsPending(runs: readonly OperatorRun[], probe: PipelineProbe): Promise<string[]> {
  const executions = await probe.executions();
  const pending = await Promise.all(
    runs.map(async ({ step, quarantineId }) => {
      if (quarantineId === null) return [];
      const record = await probe.quarantine.get(quarantineId);
      const execution = executions.find((candidate) => candidate.name === `ou-${quarantineId}`);
      return [
        ...(record?.status === 'awaiting-operator' ? [`${step.verify}: record still awaiting-operator`] : []),
        ...(execution?.status === 'RUNNING' ? [`${step.verify}: ou-${quarantineId} still running`] : []),
      ];
    }),
  );
  return pending.flat();
}

function say(scenario: Scenario, options: RunOptions, line: string): void {
  options.progress?.(`[${scenario.name}] ${line}`);
}

/** The scenario's settings as construct props. A batch of several records is gathered for up to 1 s. */
function pipelineProps(scenario: Scenario) {
  return {
    consumerTimeout: Duration.seconds(scenario.consumerTimeoutSeconds),
    attemptLimit: scenario.limit,
    batchSize: scenario.batchSize,
    inProcessConcurrency: scenario.inFlight,
    ...(scenario.batchSize > 1 ? { maxBatchingWindow: Duration.seconds(1) } : {}),
    ...(scenario.messageKey === 'id' ? { messageKeyPath: 'id' } : {}),
    ...(scenario.isolationTrialMessages === undefined
      ? {}
      : { isolationTrialMessages: scenario.isolationTrialMessages }),
    ...(scenario.outageFailureThreshold === undefined
      ? {}
      : { outageFailureThreshold: scenario.outageFailureThreshold }),
    ...durationProp('outageWindow', scenario.outageWindowSeconds),
    ...durationProp('breakerCooldown', scenario.breakerCooldownSeconds),
    ...durationProp('breakerMaxCooldown', scenario.breakerMaxCooldownSeconds),
    ...durationProp('breakerProbeWindow', scenario.breakerProbeWindowSeconds),
  };
}

/** `{ [prop]: Duration }` for a setting the scenario gives; nothing for one it leaves to the construct. */
function durationProp<P extends string>(prop: P, value: number | undefined): Partial<Record<P, Duration>> {
  return value === undefined ? {} : ({ [prop]: Duration.seconds(value) } as Record<P, Duration>);
}

function watchProgress(
  pipeline: LocalPipeline<ObservedRunner>,
  probe: PipelineProbe,
  labels: ReadonlyMap<string, string>,
  say: (line: string) => void,
): ConsumerLog {
  const label = (messageId: string) => labels.get(messageId) ?? messageId;
  return watchConsumerLog(pipeline.runner, {
    record: ({ messageId, outcome }) => {
      if (outcome.kind === 'completed') say(`${label(messageId)} completed`);
      else if (outcome.kind === 'duplicate')
        say(`${label(messageId)} delivered again: acknowledged, no new work`);
      else if (outcome.kind === 'retry') say(`${label(messageId)} failed: back in ${outcome.delaySeconds} s`);
      else if (outcome.kind === 'returned') say(`${label(messageId)} returned to the queue (${outcome.why})`);
    },
    quarantined: ({ messageId, reason }) => say(`${label(messageId)} quarantined: ${reason}`),
    control: ({ event, reason }) => say(`consumer: ${event}${reason ? ` (${reason})` : ''}`),
    death: (death) => {
      describeDeath(probe, death, label).then(say, (error: Error) => say(`a worker died (${error.message})`));
    },
  });
}

/** "M3 crashed (attempt 2)", or for a worker that held several: who was in flight. */
async function describeDeath(
  probe: PipelineProbe,
  death: Death,
  label: (id: string) => string,
): Promise<string> {
  const items = await probe.ledgerItems(death.messageIds);
  const inFlight = death.messageIds.flatMap((id) => {
    const item = items.get(id);
    return item?.state === 'in-flight' ? [{ label: label(id), attempt: item.attempts }] : [];
  });
  const what = death.kind === 'crash' ? 'crashed' : 'timed out (killed)';
  if (inFlight.length === 1) return `${inFlight[0].label} ${what} (attempt ${inFlight[0].attempt})`;
  const held = inFlight.map((message) => `${message.label} (attempt ${message.attempt})`).join(', ');
  return `a worker ${what} with ${inFlight.length} messages in flight${held ? `: ${held}` : ''}`;
}

async function waitUntilSettled(
  probe: PipelineProbe,
  keys: readonly string[],
  labels: ReadonlyMap<string, string>,
  timeoutSeconds: number,
  signal: AbortSignal | undefined,
  more: { readonly pending?: () => Promise<string[]> } = {},
): Promise<Settlement> {
  const deadline = Date.now() + timeoutSeconds * 1000;
  for (;;) {
    throwIfAborted(signal);
    const [items, queue, pending] = await Promise.all([
      probe.ledgerItems(keys),
      probe.queueDepth(),
      more.pending?.() ?? [],
    ]);
    const unsettled = keys.flatMap((key) => {
      const item = items.get(key);
      return isTerminal(item)
        ? []
        : [`${labels.get(key)}: ${item ? `${item.state}, ${item.attempts} attempts` : 'never started'}`];
    });
    unsettled.push(...pending);
    const settled = unsettled.length === 0 && queue.total === 0;
    if (settled || Date.now() >= deadline) return { settled, timeoutSeconds, unsettled, queue };
    await sleep(POLL_MS, signal);
  }
}

/** The record line of the invocation that settled a message may trail the runner's delete a little. */
async function waitForLogLines(
  log: ConsumerLog,
  probe: PipelineProbe,
  keys: readonly string[],
  logIdOf: (key: string) => string,
): Promise<void> {
  const items = await probe.ledgerItems(keys);
  const deadline = Date.now() + LOG_GRACE_MS;
  const logged = () =>
    keys.every((key) => {
      const state = items.get(key)?.state;
      return (
        !isTerminal(items.get(key)) || log.recordsOf(logIdOf(key)).some((line) => line.outcome.kind === state)
      );
    });
  while (!logged() && Date.now() < deadline) await sleep(50);
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new Error('the rehearsal was interrupted');
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
