/**
 * The CLI as a function: argv in, text out, exit code back. bin/pq.ts passes the process's
 * streams and environment; tests pass their own. Every write goes through `say` or `print`, so
 * nothing reaches the terminal without output.ts's escaping.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type CommandLine,
  endpointUrl,
  type OutputFormat,
  outputFormat,
  type ParsedArgs,
  parseCommandArgs,
  splitCommandLine,
} from './arguments';
import type { Command, CommandContext, CommandEntry, CommandResult } from './command';
import type { Deployment, Target } from './deployment';
import { NotFound, Refused, UsageError } from './errors';
import { commandHelp, overallHelp } from './help';
import { bootstrapOption, KAFKA_BOOTSTRAP_OPTION, KAFKA_BOOTSTRAP_VARIABLE } from './kafka-cluster';
import { jsonText, type Output, terminalText } from './output';
import { type ProgressStream, progressLine } from './progress';
import { textOutput } from './text-output';
import { versionLine } from './version';

export interface CliIo {
  readonly stdout: Output;
  /** A terminal (isTTY) gets a progress line during long commands. */
  readonly stderr: ProgressStream;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The clock; tests may fix it. */
  readonly now?: () => Date;
  /** Waiting (replay --rate); tests may pass one that moves their clock instead. */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** Documented in the overall help (cli/help.ts) and docs/operate.md. */
export const EXIT = { ok: 0, failed: 1, refused: 2, notFound: 3, usage: 252 } as const;

/** `commands`: the table to run from (bin/pq-commands.ts assembles pq's). */
export async function runCli(
  argv: readonly string[],
  io: CliIo,
  commands: readonly CommandEntry[],
): Promise<number> {
  // Errors name the command once it is known: "pq list: ...", else "pq: ...".
  let command: Command | undefined;
  try {
    const line = splitCommandLine(argv);
    if (line.name === undefined || line.name === 'help') return await withoutCommand(line, io, commands);
    command = await commandNamed(commands, line.name).load();
    const args = parseCommandArgs(line.args, command.options);
    if (args.flag('version')) return done(io, versionLine());
    if (args.flag('help')) return done(io, commandHelp(command));
    const format = outputFormat(args);
    const result = await command.run(contextFor(command.name, args, io));
    print(result, format, io);
    if (result.refusal === undefined) return EXIT.ok;
    say(io.stderr, `pq ${command.name}: refused: ${result.refusal}\n`);
    return EXIT.refused;
  } catch (error) {
    return report(command, error, io);
  }
}

/** `pq`, `pq --help`, `pq --version`, `pq help [COMMAND]`: nothing to run, no command loaded unless named. */
async function withoutCommand(
  line: CommandLine,
  io: CliIo,
  commands: readonly CommandEntry[],
): Promise<number> {
  const args = parseCommandArgs(line.args, {});
  if (args.flag('version')) return done(io, versionLine());
  if (line.name === 'help') {
    if (args.positionals.length > 1) {
      throw new UsageError(`help takes one command name (given ${args.positionals.join(' ')})`);
    }
    const [name] = args.positionals;
    return done(
      io,
      name === undefined ? overallHelp(commands) : commandHelp(await commandNamed(commands, name).load()),
    );
  }
  say(io.stdout, overallHelp(commands));
  // `pq` alone asked for nothing: the help, but not success, for a script that lost its command.
  return args.flag('help') ? EXIT.ok : EXIT.usage;
}

function commandNamed(commands: readonly CommandEntry[], name: string) {
  const entry = commands.find((candidate) => candidate.name === name);
  if (entry === undefined) throw new UsageError(`unknown command ${JSON.stringify(name)}`);
  return entry;
}

function done(io: CliIo, text: string): number {
  say(io.stdout, text);
  return EXIT.ok;
}

/** The options and environment variables that find the deployment, checked before anything runs. */
function targetOf(args: ParsedArgs, env: CliIo['env']): Target {
  return {
    functionName: args.string('function') ?? env.PQ_FUNCTION,
    region: args.string('region') ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION,
    endpoint: endpointUrl(args) ?? env.AWS_ENDPOINT_URL,
    profile: args.string('profile') ?? env.AWS_PROFILE,
    kafkaBootstrap: bootstrapOption(args.string(KAFKA_BOOTSTRAP_OPTION) ?? env[KAFKA_BOOTSTRAP_VARIABLE]),
  };
}

function contextFor(name: string, args: ParsedArgs, io: CliIo): CommandContext {
  const now = io.now ?? (() => new Date());
  const target = targetOf(args, io.env);
  let deployment: Promise<Deployment> | undefined;
  const context: CommandContext = {
    args,
    now,
    sleep: io.sleep ?? ((ms) => sleep(ms)),
    // Loaded on first use: the adapters bring the AWS SDK, which help and usage mistakes never need.
    deployment: () => {
      deployment ??= import('./deployment').then(({ resolveDeployment }) => resolveDeployment(target));
      return deployment;
    },
    actor: async (why) => ({ who: await (await context.deployment()).whoAmI(), why, now: now() }),
    progress: (what) => progressLine(io.stderr, `pq ${name}: ${what}`, () => now().getTime()),
  };
  return context;
}

function print(result: CommandResult, format: OutputFormat, io: CliIo): void {
  const printed = {
    json: () => jsonText(result.json),
    text: () => textOutput(result.json),
    table: () => terminalText(result.text),
  };
  io.stdout.write(printed[format]());
}

/** Messages quote ids, keys, statuses and given values: escaped like any other output. */
function say(stream: Output, text: string): void {
  stream.write(terminalText(text));
}

/** One line on stderr. Adapter errors never carry a task token or a body, so messages are safe. */
function report(command: Command | undefined, error: unknown, io: CliIo): number {
  const who = command === undefined ? 'pq' : `pq ${command.name}`;
  if (error instanceof UsageError) {
    say(io.stderr, `${who}: ${error.message} (${who} --help)\n`);
    return EXIT.usage;
  }
  if (error instanceof NotFound) {
    say(io.stderr, `${who}: not found: ${error.message}\n`);
    return EXIT.notFound;
  }
  if (error instanceof Refused) {
    say(io.stderr, `${who}: refused: ${error.message}\n`);
    return EXIT.refused;
  }
  const { name, message } = error instanceof Error ? error : new Error(String(error));
  say(io.stderr, `${who}: failed: ${name === 'Error' ? '' : `${name}: `}${message}\n`);
  return EXIT.failed;
}
