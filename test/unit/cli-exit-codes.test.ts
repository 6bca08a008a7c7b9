/**
 * pq's exit codes tell apart what a script must handle differently (cli/run.ts EXIT): for every
 * command, a bad argument exits 252 and changes nothing, and a deployment that cannot be reached
 * exits 1. Refusals (2) and missing subjects (3) need a deployment: test/integration/cli*.
 */
import { describe, expect, it } from 'vitest';
import { PQ_COMMANDS as COMMANDS } from '../../bin/pq-commands';
import { EXIT } from '../../cli/run';
import { freePort } from '../../tools/local-aws/moto';
import { pq } from '../support/run-cli';

/** Arguments that get each command as far as its first AWS call. */
const REACHES_AWS: Readonly<Record<string, readonly string[]>> = {
  status: [],
  list: [],
  show: ['q-1'],
  find: ['--key', 'order-1'],
  cause: ['q-1', 'a cause'],
  replay: ['q-1', '--reason', 'r'],
  discard: ['q-1', '--reason', 'r'],
  verify: ['q-1', '--done', '--reason', 'r'],
  backstop: ['list'],
  freeze: ['--reason', 'r'],
  unfreeze: ['--reason', 'r'],
  hold: ['--reason', 'r'],
  resume: ['--reason', 'r'],
  'reset-breaker': ['--reason', 'r'],
  recount: ['--reason', 'r'],
  console: ['--port', '0'],
};

describe('exit codes', () => {
  it('are documented in the overall help, each one', async () => {
    const help = (await pq('--help')).stdout;

    for (const code of Object.values(EXIT)) expect(help).toMatch(new RegExp(`^ {2}${code} +\\S`, 'm'));
  });

  it('cover every command of the overall help', () => {
    expect(Object.keys(REACHES_AWS).sort()).toStrictEqual(COMMANDS.map((entry) => entry.name).sort());
  });

  it.each(COMMANDS.map((entry) => entry.name))(
    '%s: a bad argument exits 252, one line naming it',
    async (name) => {
      const run = await pq(name, ...(REACHES_AWS[name] ?? []), '--no-such-option');

      expect(run).toStrictEqual({
        code: EXIT.usage,
        stdout: '',
        stderr: `pq ${name}: Unknown option '--no-such-option' (pq ${name} --help)\n`,
      });
    },
  );

  it.each(COMMANDS.map((entry) => entry.name))(
    '%s: an output format pq does not have exits 252 before anything runs',
    async (name) => {
      const run = await pq(name, ...(REACHES_AWS[name] ?? []), '--output', 'yaml');

      expect(run).toStrictEqual({
        code: EXIT.usage,
        stdout: '',
        stderr: `pq ${name}: --output takes table, text, json (given yaml) (pq ${name} --help)\n`,
      });
    },
  );

  it.each(COMMANDS.map((entry) => entry.name))(
    '%s: AWS out of reach exits 1, saying it failed (with --output text, which every command takes)',
    async (name) => {
      const endpoint = `http://127.0.0.1:${await freePort()}`;
      process.env.AWS_ACCESS_KEY_ID ??= 'testing';
      process.env.AWS_SECRET_ACCESS_KEY ??= 'testing';

      const run = await pq(
        name,
        ...(REACHES_AWS[name] ?? []),
        '--function',
        'f',
        '--region',
        'us-east-1',
        '--endpoint-url',
        endpoint,
        '--output',
        'text',
      );

      expect(run).toMatchObject({
        code: EXIT.failed,
        stderr: expect.stringMatching(new RegExp(`^pq ${name}: failed: `)),
      });
    },
    30_000,
  );
});
