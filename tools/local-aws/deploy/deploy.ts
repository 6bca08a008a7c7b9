/**
 * The local deployment: creates a synthesized CloudFormation template's resources in moto through
 * the service APIs (moto's own CloudFormation creates state machines it cannot execute and skips
 * TTL settings), in dependency order, and returns their physical names and ARNs.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { GetCallerIdentityCommand } from '@aws-sdk/client-sts';
import type { LocalAwsClients } from '../clients';
import { LocalDeployError } from './errors';
import { Resolver } from './intrinsics';
import { physicalName } from './names';
import { creationOrder } from './order';
import { Properties } from './properties';
import { INSTANTIATED_TYPES, NOT_INSTANTIATED_TYPES } from './registry';
import type { CreateContext, Created } from './resource-type';
import type {
  CfnResource,
  CfnTemplate,
  DeployedResource,
  LocalEventSourceMapping,
  LocalFunction,
  LocalStack,
  LocalStateMachine,
} from './types';

export interface DeployOptions {
  /** Clients pointed at the local AWS (createClients with its endpoint). */
  readonly clients: LocalAwsClients;
  readonly region: string;
  /** @default - what STS answers (moto: 123456789012) */
  readonly accountId?: string;
  /** The cloud assembly (cdk.out) the functions' asset paths are relative to. @default - no assetPath */
  readonly assemblyDir?: string;
  /** AWS::StackName, and the start of every generated physical name. @default 'local' */
  readonly stackName?: string;
  /** Template parameter values, over their Default. */
  readonly parameters?: Readonly<Record<string, string>>;
}

export async function deployTemplate(template: CfnTemplate, options: DeployOptions): Promise<LocalStack> {
  const templateResources = template.Resources ?? {};
  refuseUnknownTypes(templateResources);
  const stackName = options.stackName ?? 'local';
  const accountId = options.accountId ?? (await callerAccount(options.clients));
  const partition = partitionOf(options.region);
  const resources: Record<string, DeployedResource> = {};
  const resolver = new Resolver({
    template,
    pseudoParameters: {
      'AWS::Region': options.region,
      'AWS::AccountId': accountId,
      'AWS::Partition': partition,
      'AWS::URLSuffix': partition === 'aws-cn' ? 'amazonaws.com.cn' : 'amazonaws.com',
      'AWS::StackName': stackName,
      'AWS::StackId': `arn:${partition}:cloudformation:${options.region}:${accountId}:stack/${stackName}/local`,
    },
    parameters: parameterValues(template, options.parameters ?? {}),
    resources,
  });
  const functions: LocalFunction[] = [];
  const eventSourceMappings: LocalEventSourceMapping[] = [];
  const stateMachines: LocalStateMachine[] = [];
  const assemblyDir = options.assemblyDir && resolve(options.assemblyDir);

  for (const logicalId of creationOrder(templateResources)) {
    const resource = templateResources[logicalId];
    if (resource.Condition !== undefined && !resolver.condition(resource.Condition, logicalId)) continue;
    const context: CreateContext = {
      logicalId,
      clients: options.clients,
      region: options.region,
      accountId,
      partition,
      stackName,
      metadata: resource.Metadata ?? {},
      assemblyDir,
      generatedName: (rule) => physicalName(stackName, logicalId, rule),
    };
    const { deployed, created } = await deployResource(resource, resolver, context);
    resources[logicalId] = deployed;
    if (created?.function) functions.push(created.function);
    if (created?.eventSourceMapping) eventSourceMappings.push(created.eventSourceMapping);
    if (created?.stateMachine) stateMachines.push(created.stateMachine);
  }

  const outputs: Record<string, string> = {};
  for (const [name, output] of Object.entries(template.Outputs ?? {})) {
    if (output.Condition !== undefined && !resolver.condition(output.Condition, `Outputs.${name}`)) continue;
    outputs[name] = resolver.resolveString(output.Value, `Outputs.${name}`);
  }
  return {
    stackName,
    region: options.region,
    accountId,
    resources,
    functions,
    eventSourceMappings,
    stateMachines,
    outputs,
  };
}

export interface DeployCdkOutOptions extends Omit<DeployOptions, 'assemblyDir' | 'stackName'> {
  /** The cloud assembly directory `cdk synth` wrote. */
  readonly cdkOutDir: string;
}

/** Deploys one stack of a cloud assembly, found by its stack name (or artifact id) in manifest.json. */
export function deployCdkOut(stackName: string, options: DeployCdkOutOptions): Promise<LocalStack> {
  const { cdkOutDir, ...rest } = options;
  const stack = findStack(cdkOutDir, stackName);
  const template = JSON.parse(readFileSync(join(cdkOutDir, stack.templateFile), 'utf8')) as CfnTemplate;
  return deployTemplate(template, { ...rest, stackName: stack.stackName, assemblyDir: cdkOutDir });
}

interface AssemblyManifest {
  readonly artifacts?: Record<
    string,
    {
      readonly type: string;
      readonly displayName?: string;
      readonly properties?: { templateFile?: string; stackName?: string };
    }
  >;
}

export function findStack(cdkOutDir: string, stackName: string): { templateFile: string; stackName: string } {
  const manifest = JSON.parse(readFileSync(join(cdkOutDir, 'manifest.json'), 'utf8')) as AssemblyManifest;
  const stacks = Object.entries(manifest.artifacts ?? {}).filter(
    ([, artifact]) => artifact.type === 'aws:cloudformation:stack',
  );
  const found = stacks.find(
    ([id, artifact]) =>
      (artifact.properties?.stackName ?? id) === stackName || artifact.displayName === stackName,
  );
  const templateFile = found?.[1].properties?.templateFile;
  if (!found || !templateFile) {
    const known = stacks.map(([id]) => id).join(', ');
    throw new LocalDeployError(`no stack ${stackName} in ${cdkOutDir}/manifest.json (stacks: ${known})`);
  }
  const [id, artifact] = found;
  return { templateFile, stackName: artifact.properties?.stackName ?? id };
}

/** Every type is checked before anything is created, so that a refused template leaves moto untouched. */
function refuseUnknownTypes(resources: Readonly<Record<string, CfnResource>>): void {
  const unknown = Object.entries(resources)
    .filter(([, resource]) => !INSTANTIATED_TYPES[resource.Type] && !NOT_INSTANTIATED_TYPES[resource.Type])
    .map(([logicalId, resource]) => `${logicalId} (${resource.Type})`);
  if (unknown.length > 0) {
    throw new LocalDeployError(
      `the local deployment does not know the resource type of ${unknown.join(', ')}: add it to INSTANTIATED_TYPES or NOT_INSTANTIATED_TYPES (tools/local-aws/deploy/registry.ts)`,
    );
  }
}

function parameterValues(
  template: CfnTemplate,
  given: Readonly<Record<string, string>>,
): Record<string, string | readonly string[]> {
  const values: Record<string, string | readonly string[]> = {};
  for (const [name, parameter] of Object.entries(template.Parameters ?? {})) {
    // CDK's BootstrapVersion reads SSM, which only its bootstrap Rules use: left unresolved.
    if (parameter.Type.startsWith('AWS::SSM::Parameter::')) continue;
    const value = given[name] ?? (parameter.Default === undefined ? undefined : String(parameter.Default));
    if (value === undefined)
      throw new LocalDeployError(`parameter ${name} has no Default: pass its value in parameters`);
    values[name] =
      parameter.Type === 'CommaDelimitedList' || parameter.Type.startsWith('List<')
        ? value.split(',')
        : value;
  }
  return values;
}

/** Creates an instantiated type in moto; records any other with synthetic values and its reason. */
async function deployResource(
  resource: CfnResource,
  resolver: Resolver,
  context: CreateContext,
): Promise<{ deployed: DeployedResource; created?: Created }> {
  const where = `${context.logicalId} (${resource.Type})`;
  const properties = () =>
    new Properties(resolver.resolve(resource.Properties ?? {}, where) as Record<string, unknown>, where);
  const instantiated = INSTANTIATED_TYPES[resource.Type];
  if (instantiated) {
    const resolved = properties();
    resolved.expectOnly(instantiated.applies, instantiated.ignores);
    const created = await explainFailure(where, () => instantiated.create(resolved, context));
    return {
      deployed: { type: resource.Type, physicalId: created.physicalId, attributes: created.attributes },
      created,
    };
  }
  const { reason, attributes } = NOT_INSTANTIATED_TYPES[resource.Type];
  // Properties are resolved only for the types that derive a value from them.
  const synthetic = { Ref: context.logicalId, ...attributes?.(properties(), context) };
  return {
    deployed: {
      type: resource.Type,
      physicalId: synthetic.Ref,
      attributes: synthetic,
      notInstantiated: reason,
    },
  };
}

async function explainFailure(where: string, create: () => Promise<Created>): Promise<Created> {
  try {
    return await create();
  } catch (error) {
    if (error instanceof LocalDeployError && error.message.startsWith(where)) throw error;
    throw new LocalDeployError(`${where}: could not be created locally: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

async function callerAccount(clients: LocalAwsClients): Promise<string> {
  const { Account } = await clients.sts.send(new GetCallerIdentityCommand({}));
  if (!Account) throw new LocalDeployError('STS GetCallerIdentity answered without an account id');
  return Account;
}

function partitionOf(region: string): string {
  if (region.startsWith('cn-')) return 'aws-cn';
  if (region.startsWith('us-gov-')) return 'aws-us-gov';
  return 'aws';
}
