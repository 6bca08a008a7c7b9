/**
 * pq's progress line (cli/progress.ts): on a terminal only, at most ten rewrites a second, and
 * gone before the result is printed, so stdout and a redirected stderr stay clean.
 */
import { describe, expect, it } from 'vitest';
import { progressLine } from '../../cli/progress';

const CLEAR = '\r\u001b[K';

function stream(isTTY: boolean | undefined) {
  const written: string[] = [];
  return { written, isTTY, write: (text: string) => written.push(text) };
}

describe('given stderr is a terminal', () => {
  it('when steps come, then each rewrites the line in place, and end clears it', () => {
    const terminal = stream(true);
    let now = 0;
    const progress = progressLine(terminal, 'pq replay: replayed', () => (now += 500));

    progress.step(0, 2);
    progress.step(1, 2);
    progress.end();

    expect(terminal.written).toStrictEqual([
      `${CLEAR}pq replay: replayed 0 of 2`,
      `${CLEAR}pq replay: replayed 1 of 2`,
      CLEAR,
    ]);
  });

  it('when steps come faster than ten a second, then at most one every 100 ms is written, and the last', () => {
    const terminal = stream(true);
    let now = 0;
    const progress = progressLine(terminal, 'pq backstop: taken', () => (now += 10));

    for (let done = 0; done <= 50; done += 1) progress.step(done, 50);

    expect(terminal.written).toStrictEqual([
      `${CLEAR}pq backstop: taken 0 of 50`,
      `${CLEAR}pq backstop: taken 10 of 50`,
      `${CLEAR}pq backstop: taken 20 of 50`,
      `${CLEAR}pq backstop: taken 30 of 50`,
      `${CLEAR}pq backstop: taken 40 of 50`,
      `${CLEAR}pq backstop: taken 50 of 50`,
    ]);
  });

  it('when the total is unknown, then only the count; a label with a control character shows it escaped', () => {
    const terminal = stream(true);
    const progress = progressLine(terminal, 'pq x: \u001b[2Jtaken', () => 0);

    progress.step(3);

    expect(terminal.written).toStrictEqual([`${CLEAR}pq x: \\x1b[2Jtaken 3`]);
  });

  it('when nothing was stepped, then end writes nothing', () => {
    const terminal = stream(true);
    progressLine(terminal, 'pq replay: replayed', () => 0).end();

    expect(terminal.written).toStrictEqual([]);
  });
});

describe('given stderr is a pipe or a file', () => {
  it.each([false, undefined])('(isTTY %s), then nothing is written at all', (isTTY) => {
    const piped = stream(isTTY);
    const progress = progressLine(piped, 'pq replay: replayed', () => 0);

    progress.step(0, 1);
    progress.end();

    expect(piped.written).toStrictEqual([]);
  });
});
