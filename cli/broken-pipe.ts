/**
 * A reader that went away (`pq list | head -1`) is not an error: the command stops at once and
 * quietly, with the status a shell reports for a process SIGPIPE ended (128 + 13), as Unix tools
 * do. Node ignores SIGPIPE and reports EPIPE as an 'error' event on the stream; unhandled, that
 * is a stack trace. Exiting also ends what the command started: the local AWS and the function
 * environments go with the process that started them (tools/local-aws).
 */
export const BROKEN_PIPE_EXIT = 141;

export function exitQuietlyOnBrokenPipe(
  streams: readonly NodeJS.WriteStream[] = [process.stdout, process.stderr],
): void {
  for (const stream of streams) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      process.exit(BROKEN_PIPE_EXIT);
    });
  }
}

/**
 * `process.exit(code)` once stdout has taken what was written: an exit straight after a write
 * would end before the EPIPE of a reader gone meanwhile is seen, and claim success.
 */
export function exitOnceWritten(code: number): void {
  process.stdout.write('', (error) =>
    process.exit((error as NodeJS.ErrnoException | null)?.code === 'EPIPE' ? BROKEN_PIPE_EXIT : code),
  );
}
