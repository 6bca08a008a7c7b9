/**
 * The README is the user's door (issue 21, item 5): at most 300 lines with a table of contents of
 * its sections, every TypeScript snippet compiles as shown (against this repository's sources, as
 * `poison-quarantine` and `poison-quarantine/runtime`), and every relative link of the project's
 * Markdown resolves, to a file and, with a #fragment, to one of its headings.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.join(__dirname, '..', '..');
const README = path.join(root, 'README.md');
const readme = readFileSync(README, 'utf8');

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function headings(markdown: string, level = '#{1,6}'): string[] {
  const outsideCode = markdown.replace(/^```[\s\S]*?^```/gm, '');
  return [...outsideCode.matchAll(new RegExp(`^${level} (.+)$`, 'gm'))].map((match) => match[1] ?? '');
}

/** The project's own Markdown: README, the docs and every folder's README, no dependencies. */
function markdownFiles(dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      return /^(node_modules|\.|cdk\.out|dist|reports)/.test(entry.name) ? [] : markdownFiles(full);
    }
    return entry.name.endsWith('.md') ? [full] : [];
  });
}

/** Every link a Markdown file makes that is not a URL: [text](target) and ![alt](target). */
function relativeLinks(markdown: string): string[] {
  const outsideCode = markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
  return [...outsideCode.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1] ?? '')
    .filter((target) => !/^(https?:|mailto:)/.test(target));
}

/** Why the link from `file` to `target` does not resolve, or undefined when it does. */
function brokenLink(file: string, target: string): string | undefined {
  const [pathPart, fragment] = target.split('#');
  const resolved = pathPart ? path.resolve(path.dirname(file), pathPart) : file;
  if (!existsSync(resolved)) return `${target}: no such file`;
  if (fragment === undefined || !resolved.endsWith('.md')) return undefined;
  return headings(readFileSync(resolved, 'utf8')).map(slug).includes(fragment)
    ? undefined
    : `${target}: no heading #${fragment}`;
}

/** The diagnostics of each TypeScript block of `markdown`, compiled as a file of this repository. */
function snippetDiagnostics(markdown: string): string[][] {
  const snippets = [...markdown.matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((match) => match[1] ?? '');
  const parsed = ts.parseJsonConfigFileContent(
    ts.readConfigFile(path.join(root, 'tsconfig.json'), ts.sys.readFile).config,
    ts.sys,
    root,
  );
  const options: ts.CompilerOptions = {
    ...parsed.options,
    noEmit: true,
    baseUrl: root,
    // What an app gets from the installed package: its sources here.
    paths: { 'poison-quarantine': ['lib/index.ts'], 'poison-quarantine/runtime': ['lambdas/runtime.ts'] },
  };
  return snippets.map((snippet, index) => {
    const file = path.join(root, `readme-snippet-${index + 1}.ts`);
    const host = ts.createCompilerHost(options);
    const { getSourceFile, fileExists, readFile } = host;
    host.fileExists = (name) => name === file || fileExists(name);
    host.readFile = (name) => (name === file ? snippet : readFile(name));
    host.getSourceFile = (name, version, ...rest) =>
      name === file
        ? ts.createSourceFile(name, snippet, version, true)
        : getSourceFile(name, version, ...rest);
    const program = ts.createProgram([file], options, host);
    return ts
      .getPreEmitDiagnostics(program, program.getSourceFile(file))
      .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
  });
}

describe('README.md', () => {
  it('is at most 300 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
  });

  it('has a table of contents that links every section, in order', () => {
    const sections = headings(readme, '##').filter((heading) => heading !== 'Contents');
    const contents = readme.split(/^## Contents$/m)[1]?.split(/^## /m)[0] ?? '';
    const listed = [...contents.matchAll(/^- \[(.+)\]\(#(.+)\)$/gm)].map((match) => [match[1], match[2]]);

    expect(listed).toStrictEqual(sections.map((heading) => [heading, slug(heading)]));
  });

  it('has TypeScript snippets that compile as shown', () => {
    const diagnostics = snippetDiagnostics(readme);

    expect(diagnostics.length).toBeGreaterThan(0);
    expect(diagnostics).toStrictEqual(diagnostics.map(() => []));
  }, 60_000);

  it('sees a snippet that does not compile (the check can fail)', () => {
    const broken =
      "```ts\nimport { PoisonQuarantine } from 'poison-quarantine';\n\nnew PoisonQuarantine(this, 'Orders', { processorEntry: path.join(__dirname, 'w.ts') });\n```\n";

    expect(snippetDiagnostics(broken)[0]).toStrictEqual(
      expect.arrayContaining([expect.stringContaining("Cannot find name 'path'")]),
    );
  }, 60_000);
});

describe('the Markdown links', () => {
  it('resolve, every one of every file', () => {
    const files = markdownFiles();
    const broken = files.flatMap((file) =>
      relativeLinks(readFileSync(file, 'utf8'))
        .map((target) => brokenLink(file, target))
        .filter((problem) => problem !== undefined)
        .map((problem) => `${path.relative(root, file)}: ${problem}`),
    );

    expect(files.length).toBeGreaterThan(5);
    expect(broken).toStrictEqual([]);
  });

  it('sees a link that does not resolve (the check can fail)', () => {
    expect(brokenLink(README, 'docs/nowhere.md')).toBe('docs/nowhere.md: no such file');
    expect(brokenLink(README, '#no-such-section')).toBe('#no-such-section: no heading #no-such-section');
    expect(brokenLink(README, '#layout')).toBeUndefined();
  });
});
