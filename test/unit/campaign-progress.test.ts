/**
 * Issue 21, item 6: `npm run campaign` runs a thousand schedules by default, minutes of silence
 * without this. It tells its progress after each schedule; on a terminal that is one line on
 * stderr (cli/progress.ts), ended before the report.
 */
import { describe, expect, it } from 'vitest';
import { main } from '../../sim/campaign/main';

describe('given a campaign of three schedules', () => {
  it('when it runs, then it tells each schedule done of three, and ends the line before the report', async () => {
    const told: string[] = [];
    const out: string[] = [];
    const progress = {
      step: (done: number, total?: number) => told.push(`${done} of ${total}`),
      end: () => told.push(`end, report lines so far: ${out.length}`),
    };

    const code = await main(['--schedules', '3', '--seed', '5', '--shrink', '0'], {
      out: (line) => out.push(line),
      err: () => undefined,
      progress,
    });

    expect(code).toBe(0);
    expect(told).toStrictEqual(['1 of 3', '2 of 3', '3 of 3', 'end, report lines so far: 0']);
    expect(out[0]).toMatch(/^3 schedule\(s\) from seed 5/);
  });
});
