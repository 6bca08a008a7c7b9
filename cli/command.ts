/** What every command is: its help, its options, and a run that returns data to print. */
import type { OptionSpec, ParsedArgs } from './arguments';
import type { Deployment } from './deployment';
import type { Actor } from './replay-flow';

export interface CommandContext {
  readonly args: ParsedArgs;
  /** Resolved on first use: `--help` and usage mistakes never touch AWS. */
  deployment(): Promise<Deployment>;
  /** Who acts (STS), now, and the given reason: the audit entry's fields. */
  actor(why: string): Promise<Actor>;
  now(): Date;
}

export interface CommandResult {
  /** What `--json` prints. */
  readonly json: unknown;
  /** What a person sees. */
  readonly text: string;
  /** Part of the work was refused (exit 2): one line for stderr. The output is still printed. */
  readonly refusal?: string;
}

export interface Command {
  readonly name: string;
  /** One line for the overall help. */
  readonly summary: string;
  /** The full `pq NAME --help`. */
  readonly help: string;
  readonly options: OptionSpec;
  run(context: CommandContext): Promise<CommandResult>;
}
