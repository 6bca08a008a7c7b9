/**
 * The CLI as a function: argv in, text out, exit code back. bin/pq.ts passes the process's
 * streams and environment; tests pass their own. Every write goes through `say` or `print`, so
 * nothing reaches the terminal without output.ts's escaping.
 */
import { parseCommandArgs } from './arguments';
import type { Command, CommandContext, CommandResult } from './command';
import { COMMANDS } from './commands';
import { type Deployment, resolveDeployment } from './deployment';
import { Refused, UsageError } from './errors';
import { overallHelp } from './help';
import { jsonText, type Output, terminalText } from './output';

export interface CliIo {
  readonly stdout: Output;
  readonly stderr: Output;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The clock; tests may fix it. */
  readonly now?: () => Date;
}

export const EXIT = { ok: 0, failed: 1, refused: 2 } as const;

export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    say(io.stdout, overallHelp(COMMANDS));
    return name === undefined ? EXIT.refused : EXIT.ok;
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (command === undefined) {
    say(io.stderr, `pq: unknown command ${JSON.stringify(name)} (pq --help lists them)\n`);
    return EXIT.refused;
  }
  try {
    const args = parseCommandArgs(rest, command.options);
    if (args.flag('help')) {
      say(io.stdout, `${command.help}\n`);
      return EXIT.ok;
    }
    const result = await command.run(contextFor(args, io));
    print(result, args.flag('json'), io);
    if (result.refusal === undefined) return EXIT.ok;
    say(io.stderr, `pq ${command.name}: refused: ${result.refusal}\n`);
    return EXIT.refused;
  } catch (error) {
    return report(command, error, io);
  }
}

function contextFor(args: ReturnType<typeof parseCommandArgs>, io: CliIo): CommandContext {
  const now = io.now ?? (() => new Date());
  let deployment: Promise<Deployment> | undefined;
  const context: CommandContext = {
    args,
    now,
    deployment: () => {
      deployment ??= resolveDeployment({
        functionName: args.string('function') ?? io.env.PQ_FUNCTION,
        region: args.string('region') ?? io.env.AWS_REGION ?? io.env.AWS_DEFAULT_REGION,
        endpoint: args.string('endpoint') ?? io.env.AWS_ENDPOINT_URL,
      });
      return deployment;
    },
    actor: async (why) => ({ who: await (await context.deployment()).whoAmI(), why, now: now() }),
  };
  return context;
}

function print(result: CommandResult, json: boolean, io: CliIo): void {
  io.stdout.write(json ? jsonText(result.json) : terminalText(result.text));
}

/** Messages quote ids, keys, statuses and given values: escaped like any other output. */
function say(stream: Output, text: string): void {
  stream.write(terminalText(text));
}

/** One line on stderr. Adapter errors never carry a task token or a body, so messages are safe. */
function report(command: Command, error: unknown, io: CliIo): number {
  if (error instanceof UsageError) {
    say(io.stderr, `pq ${command.name}: ${error.message} (pq ${command.name} --help)\n`);
    return EXIT.refused;
  }
  if (error instanceof Refused) {
    say(io.stderr, `pq ${command.name}: refused: ${error.message}\n`);
    return EXIT.refused;
  }
  const { name, message } = error instanceof Error ? error : new Error(String(error));
  say(io.stderr, `pq ${command.name}: failed: ${name === 'Error' ? '' : `${name}: `}${message}\n`);
  return EXIT.failed;
}
