// Types of release-check.mjs, a plain node script.
export interface PackedFile {
  readonly path: string;
}
export interface Packed {
  readonly name: string;
  readonly version: string;
  readonly files: readonly PackedFile[];
}
export interface PackageRules {
  readonly dir: string;
  readonly required: readonly string[];
  readonly allowed: RegExp;
}
export declare const PACKAGES: readonly PackageRules[];
/** What is missing from a packed package, and what it ships that it should not. */
export declare function packageProblems(packed: Packed, rules: PackageRules): string[];
/** The packages' versions agree and CHANGELOG.md has a section for theirs. */
export declare function releaseProblems(packs: readonly Packed[], changelog: string): string[];
