/**
 * What every command is: its help, its options, and a run that returns data to print. The list of
 * commands (commands/index.ts) holds only names and summaries, and loads a command's module when
 * it is used, so `pq --version` and `pq --help` load no command and no AWS SDK.
 */
import type { OptionSpec, ParsedArgs } from './arguments';
import type { Deployment } from './deployment';
import type { Progress } from './progress';
import type { Actor } from './replay-flow';

export interface CommandContext {
  readonly args: ParsedArgs;
  /** Resolved on first use: `--help` and usage mistakes never touch AWS. */
  deployment(): Promise<Deployment>;
  /** Who acts (STS), now, and the given reason: the audit entry's fields. */
  actor(why: string): Promise<Actor>;
  now(): Date;
  /** Waits; tests pass one that moves their clock instead (replay --rate). */
  sleep(ms: number): Promise<void>;
  /** A progress line on stderr when it is a terminal, else nothing: `what` is counted (`replayed`). */
  progress(what: string): Progress;
}

export interface CommandResult {
  /** What `--json` prints. */
  readonly json: unknown;
  /** What a person sees. */
  readonly text: string;
  /** Part of the work was refused (exit 2): one line for stderr. The output is still printed. */
  readonly refusal?: string;
}

/** A command as the overall help lists it. */
export interface CommandEntry {
  readonly name: string;
  /** One line for the overall help. */
  readonly summary: string;
  load(): Promise<Command>;
}

export interface Command {
  readonly name: string;
  /** The full `pq NAME --help`. */
  readonly help: string;
  readonly options: OptionSpec;
  run(context: CommandContext): Promise<CommandResult>;
}
