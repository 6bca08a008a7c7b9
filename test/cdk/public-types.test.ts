/**
 * Issue 21, item 3: a CDK user can name every type the construct's API mentions. Every type of
 * this project that an exported class, interface or function of the package's entry
 * (lib/index.ts) names in a public member, a prop or a parameter is exported from there too.
 */
import * as path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.join(__dirname, '..', '..');
const ENTRY = path.join(ROOT, 'lib', 'index.ts');

/** The project's own types the entry's exports name but do not export, as `Owner.member: Type`. */
function unexportedTypes(entry: string): string[] {
  const options = { strict: true, skipLibCheck: true, noEmit: true };
  const program = ts.createProgram([entry], options, ownSourcesOnly(options));
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry);
  const module = source && checker.getSymbolAtLocation(source);
  if (module === undefined) throw new Error(`${entry} is no module`);
  const resolve = (symbol: ts.Symbol) =>
    symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const exported = new Set(checker.getExportsOfModule(module).map(resolve));
  const ours = (symbol: ts.Symbol) =>
    (symbol.declarations ?? []).some((declaration) => {
      const file = declaration.getSourceFile().fileName;
      return file.startsWith(ROOT) && !file.includes('node_modules');
    });
  const missing = new Set<string>();
  for (const symbol of exported) {
    for (const declaration of symbol.declarations ?? []) {
      const visit = (node: ts.Node, where: string): void => {
        if (ts.isTypeReferenceNode(node) || ts.isExpressionWithTypeArguments(node)) {
          const name = ts.isTypeReferenceNode(node) ? node.typeName : node.expression;
          const referenced = checker.getSymbolAtLocation(name);
          const target = referenced && resolve(referenced);
          if (
            target &&
            ours(target) &&
            !exported.has(target) &&
            !(target.flags & ts.SymbolFlags.TypeParameter)
          )
            missing.add(`${where}: ${target.getName()}`);
        }
        ts.forEachChild(node, (child) => visit(child, where));
      };
      for (const [member, nodes] of publicParts(declaration))
        for (const node of nodes) visit(node, `${symbol.getName()}.${member}`);
    }
  }
  return [...missing].sort();
}

/**
 * A compiler host that reads the project's own files and TypeScript's lib, and gives every
 * package in node_modules (aws-cdk-lib above all) as an empty file: only the project's types are
 * judged, and parsing aws-cdk-lib's declarations took most of this test's ten seconds.
 */
function ownSourcesOnly(options: ts.CompilerOptions): ts.CompilerHost {
  const host = ts.createCompilerHost(options);
  const libDirectory = path.dirname(ts.getDefaultLibFilePath(options));
  const read = host.getSourceFile;
  host.getSourceFile = (fileName, language, ...rest) =>
    fileName.includes(`${path.sep}node_modules${path.sep}`) && !fileName.startsWith(libDirectory)
      ? ts.createSourceFile(fileName, '', language)
      : read(fileName, language, ...rest);
  return host;
}

/**
 * What a user can reach, by member name: an interface's members and what it extends; a class's
 * members but its private and protected ones; a method's, a constructor's or a function's
 * parameters and return type, not the types its body uses.
 */
function publicParts(declaration: ts.Declaration): [string, readonly ts.Node[]][] {
  if (ts.isInterfaceDeclaration(declaration)) {
    return [
      ...declaration.members.map((member): [string, ts.Node[]] => [nameOf(member), [member]]),
      ['extends', [...(declaration.heritageClauses ?? [])]],
    ];
  }
  if (ts.isClassDeclaration(declaration)) {
    const hidden = ts.ModifierFlags.Private | ts.ModifierFlags.Protected;
    return declaration.members
      .filter((member) => !(ts.getCombinedModifierFlags(member as ts.Declaration) & hidden))
      .map((member) => [nameOf(member), signatureOf(member)]);
  }
  if (ts.isFunctionDeclaration(declaration)) return [[nameOf(declaration), signatureOf(declaration)]];
  if (ts.isTypeAliasDeclaration(declaration)) return [['type', [declaration.type]]];
  return [];
}

function signatureOf(member: ts.Node): readonly ts.Node[] {
  if (!ts.isFunctionLike(member)) return [member];
  return [...member.parameters, ...(member.type === undefined ? [] : [member.type])];
}

function nameOf(node: ts.Node): string {
  const name = (node as { name?: ts.Node }).name;
  return name && ts.isIdentifier(name) ? name.text : ts.SyntaxKind[node.kind];
}

describe('the package entry (lib/index.ts)', () => {
  it('exports every type of this project that its exported API names', () => {
    expect(unexportedTypes(ENTRY)).toStrictEqual([]);
  });
});
