/**
 * The operator's side of a rehearsal (rules 4 and 8): for each step of the scenario, wait until
 * the message's "outcome unknown" record holds its execution's task token (the state machine
 * stores it when it starts waiting; `pq verify` is refused before), then answer with
 * `pq verify <id> --<decision> --reason <reason>` through the CLI itself, in-process (cli/run.ts),
 * pointed at the local AWS the way an operator points it at theirs. What the CLI printed is kept
 * for the report; the task token is read only to prove it is not in that output, and is never
 * kept or printed (should the CLI ever print it, the report shows a placeholder instead).
 */
import { PQ_COMMANDS } from '../../bin/pq-commands';
import { runCli } from '../../cli/run';
import { LOCAL_CREDENTIALS } from '../../tools/local-aws/moto';
import type { ObservedRunner } from '../../tools/local-aws/runner';
import type { LocalPipeline } from '../local-pipeline';
import type { PipelineProbe } from './pipeline-probe';
import type { OperatorStep } from './scenario';

export interface OperatorRun {
  readonly step: OperatorStep;
  /** The quarantine record answered; null when none was found awaiting an operator in time. */
  readonly quarantineId: string | null;
  /** The command as run, after `pq` (the target options included). Empty when it could not run. */
  readonly command: readonly string[];
  readonly exitCode: number | null;
  readonly stdout: readonly string[];
  readonly stderr: readonly string[];
  /** Whether the record's task token appeared in the CLI's output (it must not). */
  readonly tokenInOutput: boolean;
  /** The SQS message id of the replay, as the CLI reported it (`not-done`). */
  readonly replayedAs?: string;
  /** Why the step could not run. */
  readonly error?: string;
}

export interface OperatorOptions {
  readonly pipeline: LocalPipeline<ObservedRunner>;
  readonly probe: PipelineProbe;
  /** The ledger key of a message label. */
  readonly keyOf: (label: string) => string;
  /** How long to wait for a record awaiting the operator, with its token stored. */
  readonly waitMs: number;
  readonly say: (line: string) => void;
  readonly aborted: () => boolean;
}

const POLL_MS = 250;
const TOKEN_PLACEHOLDER = '<task token>';

export async function takeOperatorSteps(
  steps: readonly OperatorStep[],
  options: OperatorOptions,
): Promise<OperatorRun[]> {
  const runs: OperatorRun[] = [];
  for (const step of steps) runs.push(await takeStep(step, options));
  return runs;
}

async function takeStep(step: OperatorStep, options: OperatorOptions): Promise<OperatorRun> {
  const { pipeline, probe } = options;
  const key = options.keyOf(step.verify);
  const failed = (error: string, quarantineId: string | null = null): OperatorRun => {
    options.say(`operator: cannot answer for ${step.verify}: ${error}`);
    return {
      step,
      quarantineId,
      command: [],
      exitCode: null,
      stdout: [],
      stderr: [],
      tokenInOutput: false,
      error,
    };
  };

  const deadline = Date.now() + options.waitMs;
  let waiting: { id: string; token: string } | undefined;
  let seen = 'no quarantine record';
  while (waiting === undefined) {
    if (options.aborted()) return failed('the rehearsal was interrupted');
    const record = (await probe.quarantineRecords()).find((candidate) => candidate.messageKey === key);
    if (record !== undefined) {
      seen = `record ${record.id} is ${record.status}`;
      const token =
        record.status === 'awaiting-operator' ? await probe.quarantine.taskTokenOf(record.id) : undefined;
      if (token !== undefined) waiting = { id: record.id, token };
      else if (record.status === 'awaiting-operator')
        seen += ', its execution has not stored a task token yet';
    }
    if (waiting === undefined) {
      if (Date.now() >= deadline)
        return failed(`nothing awaits an operator after ${options.waitMs / 1000} s (${seen})`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  const command = [
    'verify',
    waiting.id,
    `--${step.decision}`,
    '--reason',
    step.reason,
    '--function',
    pipeline.consumer.functionName,
    '--endpoint',
    pipeline.aws.endpoint,
    '--region',
    pipeline.aws.region,
  ];
  options.say(`operator: $ pq ${showCommand(command)}`);
  // The CLI finds its credentials the SDK's usual way, as on an operator's machine; in this
  // process that is the local AWS's.
  process.env.AWS_ACCESS_KEY_ID = LOCAL_CREDENTIALS.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = LOCAL_CREDENTIALS.secretAccessKey;
  let stdout = '';
  let stderr = '';
  const exitCode = await runCli(
    command,
    {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
      env: {},
    },
    PQ_COMMANDS,
  );
  const tokenInOutput = stdout.includes(waiting.token) || stderr.includes(waiting.token);
  const lines = (text: string) =>
    text
      .split(waiting.token)
      .join(TOKEN_PLACEHOLDER)
      .split('\n')
      .filter((line) => line.trim() !== '');
  const replayedAs = /Replayed once as message (\S+)\./.exec(stdout)?.[1];
  options.say(
    `operator: pq verify exited ${exitCode}${replayedAs ? `; ${step.verify} replayed as ${replayedAs}` : ''}`,
  );
  return {
    step,
    quarantineId: waiting.id,
    command,
    exitCode,
    stdout: lines(stdout),
    stderr: lines(stderr),
    tokenInOutput,
    ...(replayedAs === undefined ? {} : { replayedAs }),
  };
}

/** The command as an operator would type it: arguments with spaces or quotes are quoted. */
export function showCommand(argv: readonly string[]): string {
  return argv.map((arg) => (/^[\w./:@=-]+$/.test(arg) ? arg : JSON.stringify(arg))).join(' ');
}
