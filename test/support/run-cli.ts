/**
 * `pq` run in this process, its output captured, with no environment: a command that gets as far
 * as AWS needs its target in `argv` (or fails on "which consumer?"). `options` fix the CLI's
 * time and waits, and can make its stderr a terminal.
 */
import { PQ_COMMANDS } from '../../bin/pq-commands';
import { type CliIo, runCli } from '../../cli/run';

export interface CapturedRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The CLI's clock and wait, and whether its stderr is a terminal (which gets progress lines). */
export type RunOptions = Pick<CliIo, 'now' | 'sleep'> & { readonly stderrIsTerminal?: boolean };

export async function runCliCaptured(
  argv: readonly string[],
  { stderrIsTerminal, ...clock }: RunOptions = {},
): Promise<CapturedRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(
    argv,
    {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text), isTTY: stderrIsTerminal },
      env: {},
      ...clock,
    },
    PQ_COMMANDS,
  );
  return { code, stdout, stderr };
}

/** `pq ARGS...` offline. */
export function pq(...argv: string[]): Promise<CapturedRun> {
  return runCliCaptured(argv);
}
