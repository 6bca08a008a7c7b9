/**
 * The command line as the AWS CLI's users expect it: global options before or after the command
 * name, --endpoint-url with --endpoint as its alias, and values refused with a message that
 * quotes them.
 */
import { describe, expect, it } from 'vitest';
import {
  endpointUrl,
  parseCommandArgs,
  positiveInteger,
  positiveNumber,
  splitCommandLine,
} from '../../cli/arguments';

describe('splitCommandLine', () => {
  it.each([
    [
      'global options before the name',
      ['--region', 'eu-west-1', '--json', 'status'],
      'status',
      ['--region', 'eu-west-1', '--json'],
    ],
    [
      'an inline value and -h before it',
      ['--function=orders', '-h', 'list'],
      'list',
      ['--function=orders', '-h'],
    ],
    [
      'options on both sides',
      ['--profile', 'ops', 'list', '--limit', '5'],
      'list',
      ['--profile', 'ops', '--limit', '5'],
    ],
    ['nothing before it', ['show', 'q-1', '--json'], 'show', ['q-1', '--json']],
  ])(
    'given %s, then it finds the name and keeps every other argument in order',
    (_case, argv, name, args) => {
      // Act
      const line = splitCommandLine(argv);

      // Assess
      expect(line).toStrictEqual({ name, args });
    },
  );

  it('given only options, then there is no name', () => {
    expect(splitCommandLine(['--version'])).toStrictEqual({ name: undefined, args: ['--version'] });
  });

  it("given a command's own option before the name, then it is refused, naming the option", () => {
    expect(() => splitCommandLine(['--reason', 'fixed', 'replay', 'q-1'])).toThrow(
      '--reason is not a global option: give it after the command name',
    );
  });
});

describe('parseCommandArgs', () => {
  it('given -h, then it is --help', () => {
    expect(parseCommandArgs(['-h'], {}).flag('help')).toBe(true);
  });

  it("given a global option among the command's, then both are read", () => {
    // Act
    const args = parseCommandArgs(['--limit', '3', '--profile', 'ops', '--json'], {
      limit: { type: 'string' },
    });

    // Assess
    expect([args.string('limit'), args.string('profile'), args.flag('json')]).toStrictEqual([
      '3',
      'ops',
      true,
    ]);
  });
});

describe('endpointUrl', () => {
  const endpointOf = (...argv: string[]) => endpointUrl(parseCommandArgs(argv, {}));

  it.each([
    [['--endpoint-url', 'http://localhost:4566'], 'http://localhost:4566'],
    [['--endpoint', 'http://127.0.0.1:5000'], 'http://127.0.0.1:5000'],
    [['--endpoint', 'https://x.example', '--endpoint-url', 'https://x.example'], 'https://x.example'],
    [[], undefined],
  ])('given %j, then the endpoint is %s', (argv, expected) => {
    expect(endpointOf(...argv)).toBe(expected);
  });

  it('given two different URLs, then it is refused, naming both', () => {
    expect(() => endpointOf('--endpoint', 'http://a:1', '--endpoint-url', 'http://b:2')).toThrow(
      '--endpoint is --endpoint-url: give one of them (given http://b:2 and http://a:1)',
    );
  });

  it('given no scheme, then it is refused, naming the value', () => {
    expect(() => endpointOf('--endpoint-url', 'localhost:4566')).toThrow(
      '--endpoint-url takes a URL like http://localhost:4566 (given localhost:4566)',
    );
  });
});

describe('numbers', () => {
  it.each(['1', '20', ' 7 '])('given --limit %j, then it is taken', (text) => {
    expect(positiveInteger('limit', text)).toBe(Number(text));
  });

  it.each(['0', '-3', '2.5', 'ten', '', '1e3'])('given --limit %j, then it is refused, naming it', (text) => {
    expect(() => positiveInteger('limit', text)).toThrow(
      `--limit takes a whole number of 1 or more (given ${text})`,
    );
  });

  it.each([
    ['5', 5],
    ['0.5', 0.5],
    ['.25', 0.25],
  ])('given --rate %j, then it is %d a second', (text, rate) => {
    expect(positiveNumber('rate', text, 'messages per second')).toBe(rate);
  });

  it.each(['0', '-1', 'fast', 'Infinity', '1/2', ''])(
    'given --rate %j, then it is refused, naming it',
    (text) => {
      expect(() => positiveNumber('rate', text, 'messages per second')).toThrow(
        `--rate takes messages per second, a number above 0 (given ${text})`,
      );
    },
  );
});
