/**
 * Issue 21, item 6: `npm run bench -- --help` ran the whole bench (its flags were read by hand
 * and an unknown one was ignored). Now the arguments are strict and --help runs nothing.
 */
import { describe, expect, it } from 'vitest';
import { BenchUsageError, readBenchArgs, USAGE } from '../../bench/args';

describe('npm run bench arguments', () => {
  it.each([['--help'], ['-h']])('given %s, then help, and nothing to run', (flag) => {
    expect(readBenchArgs([flag])).toStrictEqual({ help: true });
    expect(USAGE).toContain('--only SECTIONS');
  });

  it('given --only and --runs, then those sections and runs', () => {
    const args = readBenchArgs(['--only', 'calls,scale', '--runs', '25', '--json']);
    expect(args).toMatchObject({
      help: false,
      json: true,
      options: { only: ['calls', 'scale'], coldInitRuns: 25 },
    });
  });

  it.each([
    [['--verbose'], /Unknown option '--verbose'/],
    [['--only', 'calls,nope'], /unknown section\(s\) nope/],
    [['--runs', '0'], /--runs must be a positive integer \(given 0\)/],
    [['extra'], /Unexpected argument 'extra'/],
  ])('given %j, then a usage error naming it', (argv, message) => {
    expect(() => readBenchArgs(argv)).toThrow(BenchUsageError);
    expect(() => readBenchArgs(argv)).toThrow(message);
  });
});
