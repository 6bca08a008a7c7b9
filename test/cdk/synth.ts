import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { App, type AppProps, type Environment, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { ENV } from '../../contract/env';
import { PoisonQuarantine, type PoisonQuarantineProps } from '../../lib/poison-quarantine';

export const FIXTURE_PROCESSOR = path.join(__dirname, 'fixtures', 'processor.ts');

/** The fixed account and region of the template tests; `null`: environment-agnostic. */
const TEST_ENV = { account: '111111111111', region: 'eu-west-1' };

export interface SynthOptions {
  /**
   * Bundle the consumer with esbuild. Without, the app is a {@link templateApp}: enough for
   * tests of the template; only a test about the bundle itself (or one that deploys and runs it)
   * asks for it.
   * @default false
   */
  readonly bundle?: boolean;
}

/**
 * An app for a test of the template: its functions' code is a placeholder (CDK's
 * `aws:cdk:bundling-stacks` context), seconds faster than bundling the consumer with esbuild.
 * Only a test about the bundle itself (or one that deploys and runs it) uses a plain App.
 */
export function templateApp(props: AppProps = {}) {
  return new App({
    // CDK's own CloudFormation validation is a third of each synth; cfn-lint.test.ts runs it,
    // strict, over the demo template, beside cfn-lint.
    builtinCloudFormationValidation: false,
    ...props,
    context: { 'aws:cdk:bundling-stacks': [], ...props.context },
  });
}

/** A stack holding one PoisonQuarantine with the fixture processor and the given props. */
export function pipelineStack(
  props: Partial<PoisonQuarantineProps> = {},
  env: Environment | null = TEST_ENV,
  options: SynthOptions = {},
) {
  const app = options.bundle === true ? new App() : templateApp();
  const stack = new Stack(app, 'Test', env === null ? {} : { env });
  const pipeline = new PoisonQuarantine(stack, 'Pipeline', { processorEntry: FIXTURE_PROCESSOR, ...props });
  return { app, stack, pipeline };
}

export function synthPipeline(
  props: Partial<PoisonQuarantineProps> = {},
  env: Environment | null = TEST_ENV,
  options: SynthOptions = {},
) {
  const built = pipelineStack(props, env, options);
  return { ...built, template: Template.fromStack(built.stack) };
}

export interface PolicyStatement {
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Condition?: unknown;
}

/** Every statement of the inline policies attached to roles whose logical id matches. */
export function statementsOfRole(template: Template, rolePattern: string): PolicyStatement[] {
  const policies = template.findResources('AWS::IAM::Policy', {
    Properties: { Roles: [{ Ref: Match.stringLikeRegexp(rolePattern) }] },
  });
  return Object.values(policies).flatMap((policy) => policy.Properties.PolicyDocument.Statement);
}

export const actionsOf = (statements: PolicyStatement[]) => statements.flatMap((s) => [s.Action].flat());

/** Issue 9's limit for the consumer's code, and for its deployed archive. */
export const CONSUMER_BUNDLE_LIMIT_BYTES = 700 * 1024;

/**
 * What a cold start of the consumer may load (issue 24): its entry and the chunks those import
 * statically, with the DynamoDB client but none of S3, Step Functions or SQS: 348 KiB measured
 * on 2026-12-03 with the fixture processor, where the single file of before loaded 655 KiB.
 */
export const CONSUMER_INIT_LIMIT_BYTES = 380 * 1024;

/** An ES module's static imports of files beside it, as esbuild writes them (`import(...)` is not one). */
const STATIC_IMPORT = /(?:^|[;}\s])import\s*(?:[^"'`;()]*?from\s*)?"\.\/([^"]+)"/g;

/** The files of the consumer's bundle its cold start loads: the entry, then what it imports statically. */
export function consumerInitFiles(files: ReadonlyMap<string, Buffer>, entry = 'index.mjs'): string[] {
  const loaded: string[] = [];
  const visit = (name: string) => {
    if (loaded.includes(name)) return;
    const code = files.get(name);
    if (code === undefined) throw new Error(`the bundle imports ${name}, which it does not hold`);
    loaded.push(name);
    for (const match of code.toString().matchAll(STATIC_IMPORT)) visit(match[1] ?? '');
  };
  visit(entry);
  return loaded;
}

interface TemplateResource {
  readonly Type: string;
  readonly Properties?: {
    readonly Code?: { readonly S3Key?: string };
    readonly Environment?: { readonly Variables?: Record<string, unknown> };
  };
}

/** The consumer function's code asset in a cloud assembly directory: its files by name. */
export function consumerAssetFiles(assemblyDir: string, template: unknown): Map<string, Buffer> {
  const resources = Object.values((template as { Resources: Record<string, TemplateResource> }).Resources);
  const consumer = resources.find(
    (resource) =>
      resource.Type === 'AWS::Lambda::Function' &&
      ENV.attemptsTable in (resource.Properties?.Environment?.Variables ?? {}),
  );
  const key = consumer?.Properties?.Code?.S3Key;
  if (key === undefined) throw new Error(`no consumer function with a code asset in ${assemblyDir}`);
  const directory = path.join(assemblyDir, `asset.${key.replace(/\.zip$/, '')}`);
  return new Map(readdirSync(directory).map((name) => [name, readFileSync(path.join(directory, name))]));
}

type Json = Record<string, unknown>;

/** One state of a synthesized definition, as the tests read it. */
export interface AslState extends Json {
  readonly Type: string;
  readonly Comment?: string;
  readonly Next?: string;
  readonly Default?: string;
  readonly End?: boolean;
  readonly Resource?: string;
  readonly Parameters?: Json;
  readonly Choices?: ({ readonly Next: string; readonly Comment?: string } & Json)[];
  readonly Catch?: { readonly ErrorEquals: string[]; readonly Next: string }[];
  readonly Retry?: { readonly ErrorEquals: string[] }[];
}

export interface AslDefinition {
  readonly StartAt: string;
  readonly Comment?: string;
  readonly QueryLanguage?: string;
  readonly States: Record<string, AslState>;
}

/**
 * A template string as text: an Fn::Join of text and references (or plain text), each reference
 * written `{{Ref X}}` / `{{GetAtt X.Attribute}}` (the partition becomes `aws`), so that JSON
 * inside it (a state machine definition, a dashboard body) parses.
 */
export function joinedText(value: unknown): string {
  if (typeof value === 'string') return value;
  const [, parts] = (value as { 'Fn::Join': [string, unknown[]] })['Fn::Join'];
  return parts
    .map((part) => {
      if (typeof part === 'string') return part;
      const reference = part as { Ref?: string; 'Fn::GetAtt'?: string[] };
      if (reference.Ref === 'AWS::Partition') return 'aws';
      return reference.Ref ? `{{Ref ${reference.Ref}}}` : `{{GetAtt ${reference['Fn::GetAtt']?.join('.')}}}`;
    })
    .join('');
}

/**
 * The definition of the construct's `Pause` or `Verification` state machine, with its references
 * written as joinedText writes them.
 */
export function stateMachineDefinition(template: Template, machine: 'Pause' | 'Verification') {
  const found = Object.entries(template.findResources('AWS::StepFunctions::StateMachine')).filter(([id]) =>
    id.startsWith(`Pipeline${machine}`),
  );
  if (found.length !== 1)
    throw new Error(`expected one Pipeline${machine} state machine, found ${found.length}`);
  const [[, resource]] = found;
  const text = joinedText(resource.Properties.DefinitionString);
  const definition = JSON.parse(text) as AslDefinition;
  return { text, definition, states: definition.States, resource };
}
