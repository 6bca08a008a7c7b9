/**
 * The CLI's commands run from the console: the same `run` that `pq` calls, with a context built
 * from a form instead of a command line, the console's deployment and the operator's identity.
 */
import type { Command, CommandContext } from '../cli/command';
import { replay } from '../cli/commands/replay';
import type { Deployment } from '../cli/deployment';
import { Refused, UsageError } from '../cli/errors';
import type { KafkaProduceSummary } from '../cli/kafka-replay';
import { NO_PROGRESS } from '../cli/progress';
import type { Outcome } from './pages/forms';

export interface CommandDeps {
  readonly deployment: Deployment;
  readonly now: () => Date;
  /** The wait between paced sends (a group replay's rate); tests move their clock instead. */
  readonly sleep: (ms: number) => Promise<void>;
}

/** What a command line would have given the command: its positionals, options and flags. */
export interface CliArgs {
  readonly positionals: readonly string[];
  readonly options?: Readonly<Record<string, string | boolean | undefined>>;
}

/**
 * Runs a command as `pq` would: a refusal (or a usage mistake: a field left out) is a refusal,
 * nothing changed; anything else failed. Adapter errors never carry a task token or a body
 * (cli/run.ts prints them as they are), so their messages are shown.
 */
export async function runCommand(command: Command, args: CliArgs, deps: CommandDeps): Promise<Outcome> {
  try {
    const result = await command.run(commandContext(args, deps));
    return { kind: 'done', text: result.text, ...(result.refusal ? { refusal: result.refusal } : {}) };
  } catch (error) {
    if (error instanceof Refused || error instanceof UsageError)
      return { kind: 'refused', reason: error.message };
    const { name, message } = error instanceof Error ? error : new Error(String(error));
    return { kind: 'failed', message: `${name === 'Error' ? '' : `${name}: `}${message}` };
  }
}

/** One member's verdict in `pq replay --dry-run`'s JSON: replayed (with its cause) or refused. */
export interface Verdict {
  readonly id: string;
  readonly refused?: string;
  readonly cause?: string;
  /** A Kafka replay: what it would produce, and where. */
  readonly produce?: KafkaProduceSummary;
}

/** `pq replay --dry-run` with these arguments: nothing is changed or sent. Refusals throw `Refused`. */
export async function replayVerdicts(deps: CommandDeps, args: CliArgs): Promise<Verdict[]> {
  const { positionals, options = {} } = args;
  const result = await replay.run(
    commandContext({ positionals, options: { ...options, 'dry-run': true } }, deps),
  );
  const outcomes = (result.json as { readonly outcomes?: unknown }).outcomes;
  if (!Array.isArray(outcomes) || !outcomes.every(isVerdict)) {
    throw new Error('pq replay --dry-run answered in a shape the console does not know');
  }
  return outcomes;
}

function isVerdict(value: unknown): value is Verdict {
  const { id, refused, cause } = (value ?? {}) as Record<string, unknown>;
  return typeof id === 'string' && (typeof refused === 'string' || typeof cause === 'string');
}

function commandContext({ positionals, options = {} }: CliArgs, deps: CommandDeps): CommandContext {
  return {
    args: {
      positionals,
      string: (name) => {
        const value = options[name];
        return typeof value === 'string' ? value : undefined;
      },
      flag: (name) => options[name] === true,
    },
    now: deps.now,
    sleep: deps.sleep,
    deployment: async () => deps.deployment,
    actor: async (why) => ({ who: await deps.deployment.whoAmI(), why, now: deps.now() }),
    // The browser waits for the whole answer: no terminal to show progress on.
    progress: () => NO_PROGRESS,
  };
}
