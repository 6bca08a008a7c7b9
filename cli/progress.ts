/**
 * A progress line for long commands (a group replay, a backstop take --all): on a terminal,
 * one line on stderr rewritten in place, so stdout keeps only the result and a pipe or a file
 * gets no progress at all. At most ten rewrites a second; cleared before the result is printed.
 */
import { type Output, printable } from './output';

export interface Progress {
  /** `done` of `total` (total unknown: a backstop is only known empty when a receive brings none). */
  step(done: number, total?: number): void;
  /** Clears the line; a no-op when nothing was written. */
  end(): void;
}

/** stderr as bin/pq.ts passes it: a terminal says so (process.stderr.isTTY). */
export type ProgressStream = Output & { readonly isTTY?: boolean };

const MIN_INTERVAL_MS = 100;
/** Back to the start of the line, then erase it (ECMA-48 CR and EL). */
const CLEAR_LINE = '\r\u001b[K';

export const NO_PROGRESS: Progress = { step: () => undefined, end: () => undefined };

/** `label` says what is counted, e.g. `pq replay: replayed`: `pq replay: replayed 12 of 40`. */
export function progressLine(stream: ProgressStream, label: string, now: () => number): Progress {
  if (stream.isTTY !== true) return NO_PROGRESS;
  let lastAt = Number.NEGATIVE_INFINITY;
  let written = false;
  return {
    step(done, total) {
      const at = now();
      if (at - lastAt < MIN_INTERVAL_MS && done !== total) return;
      lastAt = at;
      written = true;
      stream.write(`${CLEAR_LINE}${printable(label)} ${done}${total === undefined ? '' : ` of ${total}`}`);
    },
    end() {
      if (written) stream.write(CLEAR_LINE);
      written = false;
    },
  };
}
