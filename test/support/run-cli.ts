/**
 * `pq` run in this process, its output captured, with no environment: a command that gets as far
 * as AWS needs its target in `argv` (or fails on "which consumer?"). `clock` fixes the CLI's
 * time and waits.
 */
import { PQ_COMMANDS } from '../../bin/pq-commands';
import { type CliIo, runCli } from '../../cli/run';

export interface CapturedRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export async function runCliCaptured(
  argv: readonly string[],
  clock: Pick<CliIo, 'now' | 'sleep'> = {},
): Promise<CapturedRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(
    argv,
    {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
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
