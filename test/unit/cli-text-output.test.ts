/**
 * `--output text`: the AWS CLI's text format (cli/text-output.ts), so that `pq list --output text
 * | cut -f3` works as it does on `aws ... --output text`; and the choice of format in runCli.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CommandEntry } from '../../cli/command';
import { jsonText } from '../../cli/output';
import { EXIT, runCli } from '../../cli/run';
import { textOutput } from '../../cli/text-output';

describe('textOutput', () => {
  it('given an object, then its scalars are one line in key order, and each list of objects follows one line each, columns shared', () => {
    const result = {
      total: 2,
      records: [
        { id: 'q-1', reason: 'crash-limit', attempts: 3 },
        { id: 'q-2', attempts: 5, cause: 'bad parser' },
      ],
      paused: false,
    };

    expect(textOutput(result)).toBe(
      ['False\t2', 'RECORDS\t3\t\tq-1\tcrash-limit', 'RECORDS\t5\tbad parser\tq-2\t']
        .map((line) => `${line}\n`)
        .join(''),
    );
  });

  it('given a list whose elements hold a key as a scalar in one and an object in another, then an empty cell and the object below', () => {
    expect(
      textOutput({
        items: [
          { id: 'a', detail: 'short' },
          { id: 'b', detail: { code: 7 } },
        ],
      }),
    ).toBe('ITEMS\tshort\ta\nITEMS\t\tb\nDETAIL\t7\n');
  });

  it('given null and booleans, then None, True and False, as the AWS CLI prints them', () => {
    expect(textOutput({ a: null, b: true, c: false })).toBe('None\tTrue\tFalse\n');
  });

  it('given a list of scalars, then one line at the top level, one KEY line each below it', () => {
    expect(textOutput(['a', 'b'])).toBe('a\tb\n');
    expect(textOutput({ ids: ['q-1', 'q-2'] })).toBe('IDS\tq-1\nIDS\tq-2\n');
  });

  it('given nested objects, then each under its upper-cased key, after the scalars of its parent', () => {
    expect(textOutput({ name: 'orders', breaker: { state: 'CLOSED', trips: 0 }, queue: { depth: 4 } })).toBe(
      'orders\nBREAKER\tCLOSED\t0\nQUEUE\t4\n',
    );
  });

  it('given a value with a tab, a line feed or a terminal escape, then it stays in its cell, escaped', () => {
    expect(textOutput({ cause: 'a\tb\nc\u001b[2J' })).toBe('a\\tb\\nc\\x1b[2J\n');
  });

  it('given any JSON, then every line ends once, nothing but tabs separates, and every string shows', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = textOutput(value);
        // biome-ignore lint/suspicious/noControlCharactersInRegex: the point is that none is left
        expect(text.replace(/[\t\n]/g, '')).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
        const strings: string[] = [];
        JSON.stringify(value, (_, leaf) => {
          if (typeof leaf === 'string') strings.push(leaf);
          return leaf;
        });
        for (const leaf of strings.filter((string) => /^[\w .-]+$/.test(string))) {
          expect(text).toContain(leaf);
        }
      }),
      { seed: 20261204, numRuns: 300 },
    );
  });
});

describe('given a command, when pq runs it with an output format', () => {
  const result = { json: { id: 'q-1', attempts: 3 }, text: 'a table for people\n' };
  const commands: CommandEntry[] = [
    {
      name: 'look',
      summary: 'looks',
      load: async () => ({ name: 'look', help: 'pq look', options: {}, run: async () => result }),
    },
  ];
  async function pq(...argv: string[]) {
    let stdout = '';
    let stderr = '';
    const code = await runCli(
      argv,
      {
        stdout: {
          write: (text: string) => {
            stdout += text;
          },
        },
        stderr: {
          write: (text: string) => {
            stderr += text;
          },
        },
        env: {},
      },
      commands,
    );
    return { code, stdout, stderr };
  }

  it('then table is the default, for people', async () => {
    expect(await pq('look')).toStrictEqual({ code: EXIT.ok, stdout: result.text, stderr: '' });
    expect(await pq('look', '--output', 'table')).toStrictEqual(await pq('look'));
  });

  it('then json is the JSON document, as --json (kept) prints it', async () => {
    expect(await pq('look', '--output', 'json')).toStrictEqual({
      code: EXIT.ok,
      stdout: jsonText(result.json),
      stderr: '',
    });
    expect(await pq('look', '--json')).toStrictEqual(await pq('look', '--output', 'json'));
    expect(await pq('--output', 'json', 'look')).toStrictEqual(await pq('look', '--json'));
  });

  it('then text is the same data, tab-separated', async () => {
    expect(await pq('look', '--output', 'text')).toStrictEqual({
      code: EXIT.ok,
      stdout: '3\tq-1\n',
      stderr: '',
    });
  });

  it('then an unknown format, or --json with another, is a usage error (252) and nothing runs', async () => {
    expect(await pq('look', '--output', 'yaml')).toStrictEqual({
      code: EXIT.usage,
      stdout: '',
      stderr: 'pq look: --output takes table, text, json (given yaml) (pq look --help)\n',
    });
    expect(await pq('look', '--json', '--output', 'text')).toMatchObject({
      code: EXIT.usage,
      stderr:
        'pq look: --json is --output json: give one of them (given --output text too) (pq look --help)\n',
    });
  });
});
