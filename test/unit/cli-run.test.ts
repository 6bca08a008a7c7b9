/**
 * `pq` as a command line, before anything reaches AWS: --version, help in every spelling the AWS
 * CLI's users try (-h, --help, pq help CMD), global options on either side of the command name,
 * and bad input refused (exit 252, as the AWS CLI's) with one line that names it.
 */
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../cli/commands';
import { version } from '../../packages/pq/package.json';
import { pq } from '../support/run-cli';

describe('--version', () => {
  it.each([[['--version']], [['--region', 'eu-west-1', '--version']], [['status', '--version']]])(
    'given %j, then it prints the package version, Node and the platform (exit 0)',
    async (argv) => {
      expect(await pq(...argv)).toStrictEqual({
        code: 0,
        stdout: `pq/${version} node/${process.version} ${process.platform}/${process.arch}\n`,
        stderr: '',
      });
    },
  );
});

describe('help', () => {
  it.each(COMMANDS.map((entry) => [entry.name]))(
    'given %s, then -h, --help, pq help NAME and global options before it all print its help (exit 0)',
    async (name) => {
      // Act
      const outputs = await Promise.all([
        pq(name, '-h'),
        pq(name, '--help'),
        pq('help', name),
        pq('--region', 'eu-west-1', '--json', name, '--help'),
      ]);

      // Assess
      const [first] = outputs;
      expect(first?.stdout).toMatch(new RegExp(`^pq ${name}\\b`));
      expect(first?.stdout).toContain('Global options (before or after the command');
      for (const output of outputs)
        expect(output).toStrictEqual({ code: 0, stdout: first?.stdout, stderr: '' });
    },
  );

  it('given pq help, -h or --help, then each prints the overall help listing every command (exit 0)', async () => {
    // Act
    const outputs = await Promise.all([pq('help'), pq('-h'), pq('--help')]);

    // Assess
    const [first] = outputs;
    const lines = first?.stdout.split('\n') ?? [];
    const listed = COMMANDS.filter(({ name, summary }) =>
      lines.some((line) => line.startsWith(`  ${name} `) && line.endsWith(` ${summary}`)),
    );
    expect(listed).toStrictEqual(COMMANDS);
    expect(first?.stdout).toContain('--endpoint-url URL');
    for (const output of outputs)
      expect(output).toStrictEqual({ code: 0, stdout: first?.stdout, stderr: '' });
  });

  it('given no command at all, then it prints the overall help but exits 252: a script lost its command', async () => {
    expect(await pq()).toMatchObject({ code: 252, stdout: expect.stringContaining('Usage: pq'), stderr: '' });
  });
});

describe('bad input: exit 252, one line on stderr naming it, nothing sent to AWS', () => {
  it.each([
    [['frobnicate'], 'pq: unknown command "frobnicate" (pq --help)'],
    [['help', 'frobnicate'], 'pq: unknown command "frobnicate" (pq --help)'],
    [['help', 'list', 'show'], 'pq: help takes one command name (given list show) (pq --help)'],
    [
      ['--reason', 'fixed', 'replay', 'q-1'],
      'pq: --reason is not a global option: give it after the command name (pq --help)',
    ],
    [['--colour'], 'pq: --colour is not a global option: give it after the command name (pq --help)'],
    [['status', '--colour'], "pq status: Unknown option '--colour' (pq status --help)"],
    [
      ['status', '--endpoint', 'http://a:1', '--endpoint-url', 'http://b:2'],
      'pq status: --endpoint is --endpoint-url: give one of them (given http://b:2 and http://a:1) (pq status --help)',
    ],
    [
      ['--endpoint-url', 'localhost:4566', 'status'],
      'pq status: --endpoint-url takes a URL like http://localhost:4566 (given localhost:4566) (pq status --help)',
    ],
    [
      ['list', '--limit', 'all'],
      'pq list: --limit takes a whole number of 1 or more (given all) (pq list --help)',
    ],
    [['list', '--limit'], "pq list: Option '--limit <value>' argument missing (pq list --help)"],
    [
      ['replay', '--group', 'g-1', '--rate', 'fast'],
      'pq replay: --rate takes messages per second, a number above 0 (given fast) (pq replay --help)',
    ],
    [
      ['replay', 'q-1', '--rate', '5'],
      'pq replay: --rate paces a --group replay; one ID is one message (given --rate 5) (pq replay --help)',
    ],
    [
      ['replay', 'q-1', '--resume', '--dry-run'],
      'pq replay: --resume takes no --dry-run or --rate (pq replay --help)',
    ],
    [
      ['replay', 'q-1', '--resume', '--replay-topic', 'orders'],
      'pq replay: --resume takes no --replay-topic: it never sends (pq replay --help)',
    ],
    [
      ['--kafka-bootstrap', 'broker.internal', 'replay', 'q-1'],
      "pq replay: --kafka-bootstrap takes HOST:PORT[,HOST:PORT...], the brokers' addresses (given broker.internal) (pq replay --help)",
    ],
  ])('given %j', async (argv, line) => {
    expect(await pq(...argv)).toStrictEqual({ code: 252, stdout: '', stderr: `${line}\n` });
  });
});
