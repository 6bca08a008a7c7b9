/**
 * The "Construct props" table of docs/construct.md against the props interface itself, read with the
 * TypeScript compiler: a prop missing from the table, or a row naming no prop, fails here.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.join(__dirname, '..', '..');

interface PropDoc {
  readonly name: string;
  readonly optional: boolean;
  /** The `@default` tag's text, if any. */
  readonly default?: string;
}

/** The members of `PoisonQuarantineProps` as declared in lib/poison-quarantine-props.ts. */
function declaredProps(): PropDoc[] {
  const file = path.join(root, 'lib', 'poison-quarantine-props.ts');
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const props = source.statements.find(
    (statement): statement is ts.InterfaceDeclaration =>
      ts.isInterfaceDeclaration(statement) && statement.name.text === 'PoisonQuarantineProps',
  );
  if (props === undefined) throw new Error(`no PoisonQuarantineProps in ${file}`);
  return props.members.filter(ts.isPropertySignature).map((member) => {
    const tag = ts.getJSDocTags(member).find((candidate) => candidate.tagName.text === 'default');
    const comment = typeof tag?.comment === 'string' ? tag.comment : ts.getTextOfJSDocComment(tag?.comment);
    return {
      name: member.name.getText(source),
      optional: member.questionToken !== undefined,
      ...(tag === undefined ? {} : { default: comment ?? '' }),
    };
  });
}

/** The prop names docs/construct.md's table lists: every `name` in the first column of its rows. */
function tabledProps(): string[] {
  const readme = readFileSync(path.join(root, 'docs', 'construct.md'), 'utf8');
  const section = readme.split(/^## Construct props$/m)[1]?.split(/^#{2,3} /m)[0];
  if (section === undefined) throw new Error('docs/construct.md has no "## Construct props" section');
  const rows = section.split('\n').filter((line) => /^\|/.test(line) && !/^\|\s*(prop\s*\||-)/.test(line));
  return rows.flatMap((row) =>
    [...(row.split('|')[1] ?? '').matchAll(/`([A-Za-z]+)`/g)].map((match) => match[1]),
  );
}

describe("docs/construct.md's construct props table", () => {
  const declared = declaredProps();
  const tabled = tabledProps();

  it('sees the props it compares (neither side is empty)', () => {
    expect(declared.map((prop) => prop.name)).toContain('processorEntry');
    expect(tabled).toContain('processorEntry');
  });

  it('lists every prop of PoisonQuarantineProps', () => {
    const missing = declared.map((prop) => prop.name).filter((name) => !tabled.includes(name));
    expect(missing).toStrictEqual([]);
  });

  it('names no prop that does not exist, and none twice', () => {
    const names = new Set(declared.map((prop) => prop.name));
    expect(tabled.filter((name) => !names.has(name))).toStrictEqual([]);
    expect(tabled.filter((name, index) => tabled.indexOf(name) !== index)).toStrictEqual([]);
  });

  it('finds a @default on every optional prop', () => {
    const undocumented = declared.filter((prop) => prop.optional && !prop.default);
    expect(undocumented.map((prop) => prop.name)).toStrictEqual([]);
  });
});
