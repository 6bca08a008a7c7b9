/** `pq console` on the command line, before anything reaches AWS or listens. */
import { describe, expect, it } from 'vitest';
import { pq } from '../support/run-cli';

describe('pq console', () => {
  it.each([['80a'], ['-1'], ['65536'], ['']])(
    'given --port %j, then refused (exit 252) naming it',
    async (port) => {
      expect(await pq('console', `--port=${port}`)).toStrictEqual({
        code: 252,
        stdout: '',
        stderr: `pq console: --port takes a number from 0 to 65535 (given ${port}) (pq console --help)\n`,
      });
    },
  );

  it('given an argument, then refused (exit 252): it takes none', async () => {
    expect(await pq('console', 'records')).toMatchObject({
      code: 252,
      stderr: 'pq console: expected no arguments, given 1 argument(s) (pq console --help)\n',
    });
  });

  it('given no consumer, then refused before it listens', async () => {
    expect(await pq('console', '--port', '0')).toMatchObject({
      code: 252,
      stderr: expect.stringContaining('which consumer? pass --function NAME'),
    });
  });

  it('given pq --help, then the console is listed with the other commands', async () => {
    expect((await pq('--help')).stdout).toMatch(/^ {2}console +a web console on 127\.0\.0\.1: /m);
  });
});
