/**
 * What users set on their own functions, passed through to the consumer: VPC and security groups,
 * layers, tracing. Bundling options are tested where the bundle is built (consumer-bundle.test.ts).
 */
import * as path from 'node:path';
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import { describe, expect, it } from 'vitest';
import { ENV } from '../../contract/env';
import { consumerBuildOptions } from '../../lib/consumer-bundling';
import { PoisonQuarantine, type PoisonQuarantineProps } from '../../lib/poison-quarantine';
import { actionsOf, FIXTURE_PROCESSOR, pipelineStack, statementsOfRole, templateApp } from './synth';

/** A pipeline whose props may refer to constructs of its stack; the consumer is not bundled. */
function pipelineWith(props: (stack: Stack) => Partial<PoisonQuarantineProps>) {
  const app = templateApp();
  const stack = new Stack(app, 'Options', { env: { account: '111111111111', region: 'eu-west-1' } });
  const construct = () =>
    new PoisonQuarantine(stack, 'Pipeline', { processorEntry: FIXTURE_PROCESSOR, ...props(stack) });
  return { stack, construct };
}

/** The consumer's function resource (the one with the ledger's environment variable). */
function consumerOf(template: Template): Record<string, unknown> {
  const found = Object.values(template.findResources('AWS::Lambda::Function')).filter(
    (resource) => ENV.attemptsTable in (resource.Properties.Environment?.Variables ?? {}),
  );
  expect(found).toHaveLength(1);
  return found[0]?.Properties;
}

/** An existing VPC with two private subnets, as a user's app would import it. */
function importedVpc(stack: Stack): ec2.IVpc {
  return ec2.Vpc.fromVpcAttributes(stack, 'Vpc', {
    vpcId: 'vpc-0a1b2c3d4e5f60718',
    availabilityZones: ['eu-west-1a', 'eu-west-1b'],
    privateSubnetIds: ['subnet-0a0a0a0a0a0a0a0a0', 'subnet-0b0b0b0b0b0b0b0b0'],
  });
}

describe('the consumer in a VPC', () => {
  it('given a vpc, then the consumer runs in its private subnets with a security group of its own, and may attach there', () => {
    // Prepare
    const { stack, construct } = pipelineWith((scope) => ({ vpc: importedVpc(scope) }));

    // Act
    construct();
    const template = Template.fromStack(stack);

    // Assess
    expect(consumerOf(template).VpcConfig).toStrictEqual({
      SubnetIds: ['subnet-0a0a0a0a0a0a0a0a0', 'subnet-0b0b0b0b0b0b0b0b0'],
      SecurityGroupIds: [
        { 'Fn::GetAtt': [expect.stringMatching(/^PipelineConsumerSecurityGroup/), 'GroupId'] },
      ],
    });
    // The role is the construct's own, so CDK adds no AWSLambdaVPCAccessExecutionRole to it.
    expect(actionsOf(statementsOfRole(template, 'ConsumerRole'))).toEqual(
      expect.arrayContaining(['ec2:CreateNetworkInterface', 'ec2:DeleteNetworkInterface']),
    );
  });

  it('given subnets and security groups, then the consumer uses exactly those', () => {
    // Prepare
    const { stack, construct } = pipelineWith((scope) => ({
      vpc: importedVpc(scope),
      vpcSubnets: { subnets: [ec2.Subnet.fromSubnetId(scope, 'Only', 'subnet-0b0b0b0b0b0b0b0b0')] },
      securityGroups: [ec2.SecurityGroup.fromSecurityGroupId(scope, 'Mine', 'sg-0a1b2c3d4e5f60718')],
    }));

    // Act
    construct();

    // Assess
    expect(consumerOf(Template.fromStack(stack)).VpcConfig).toStrictEqual({
      SubnetIds: ['subnet-0b0b0b0b0b0b0b0b0'],
      SecurityGroupIds: ['sg-0a1b2c3d4e5f60718'],
    });
  });

  it('given no vpc, then the consumer is in none and its role holds no network grant', () => {
    // Act
    const { stack } = pipelineStack();
    const template = Template.fromStack(stack);

    // Assess
    expect(consumerOf(template).VpcConfig).toBeUndefined();
    expect(
      actionsOf(statementsOfRole(template, 'ConsumerRole')).filter((action) => action.startsWith('ec2:')),
    ).toEqual([]);
  });
});

describe('layers and tracing', () => {
  it('given layers, then the consumer loads them', () => {
    // Prepare
    const arn = 'arn:aws:lambda:eu-west-1:111111111111:layer:tools:3';
    const { stack, construct } = pipelineWith((scope) => ({
      layers: [lambda.LayerVersion.fromLayerVersionArn(scope, 'Tools', arn)],
    }));

    // Act
    construct();

    // Assess
    expect(consumerOf(Template.fromStack(stack)).Layers).toStrictEqual([arn]);
  });

  it('given active tracing, then the consumer is traced and may write its segments', () => {
    // Prepare
    const { stack, construct } = pipelineWith(() => ({ tracing: lambda.Tracing.ACTIVE }));

    // Act
    construct();
    const template = Template.fromStack(stack);

    // Assess
    expect(consumerOf(template).TracingConfig).toStrictEqual({ Mode: 'Active' });
    expect(actionsOf(statementsOfRole(template, 'ConsumerRole'))).toContain('xray:PutTraceSegments');
  });

  it('given no tracing prop, then tracing is off', () => {
    // Act
    const { stack } = pipelineStack();

    // Assess
    expect(consumerOf(Template.fromStack(stack)).TracingConfig).toBeUndefined();
  });
});

describe('validation of the function options', () => {
  it('refuses security groups without a vpc, naming how many were given', () => {
    const { construct } = pipelineWith((scope) => ({
      securityGroups: [ec2.SecurityGroup.fromSecurityGroupId(scope, 'Mine', 'sg-0a1b2c3d4e5f60718')],
    }));
    expect(construct).toThrow(/securityGroups need a vpc \(given 1 and no vpc\)/);
  });

  it('refuses subnets without a vpc', () => {
    const { construct } = pipelineWith((scope) => ({
      vpcSubnets: { subnets: [ec2.Subnet.fromSubnetId(scope, 'Only', 'subnet-0b0b0b0b0b0b0b0b0')] },
    }));
    expect(construct).toThrow(/vpcSubnets need a vpc \(given vpcSubnets and no vpc\)/);
  });

  it('refuses more than five layers', () => {
    const { construct } = pipelineWith((scope) => ({
      layers: Array.from({ length: 6 }, (_, index) =>
        lambda.LayerVersion.fromLayerVersionArn(
          scope,
          `L${index}`,
          `arn:aws:lambda:eu-west-1:1:layer:l${index}:1`,
        ),
      ),
    }));
    expect(construct).toThrow(/layers: a function takes at most 5 \(given 6\)/);
  });

  it.each<[Partial<PoisonQuarantineProps>, RegExp]>([
    [
      { bundling: { keepNames: false } },
      /bundling.keepNames must stay true: error signatures, which group quarantine records, name functions \(given false\)/,
    ],
    [
      { bundling: { esbuildArgs: { '--alias:pq-user-processor': './other.ts' } } },
      /bundling.esbuildArgs must not set --alias:pq-user-processor: it points the consumer at processorEntry \(given "\.\/other\.ts"\)/,
    ],
    [
      { bundling: { externalModules: ['pg', 'pq-user-processor'] } },
      /bundling.externalModules must not name pq-user-processor: processorEntry is bundled in \(given \["pg","pq-user-processor"\]\)/,
    ],
  ])('refuses bundling options that change what the consumer needs: %o', (props, message) => {
    expect(() => pipelineStack(props)).toThrow(message);
  });

  it.each<[Partial<PoisonQuarantineProps>, RegExp]>([
    [
      { bundling: { format: nodejs.OutputFormat.CJS } },
      /bundling.format must be esm: the consumer is split ES modules, its rare clients loaded on first use \(given cjs\)/,
    ],
    [
      { bundling: { esbuildArgs: { '--log-limit': '0', '--alias:lodash': 'lodash-es' } } },
      /bundling.esbuildArgs takes only --alias:<module> here: the consumer is built with esbuild's API, as split ES modules \(given --log-limit\)/,
    ],
    [
      { bundling: { nodeModules: ['sharp'], forceDockerBundling: true } },
      /bundling.nodeModules, bundling.forceDockerBundling: not supported, the consumer is bundled on this machine by esbuild's API, without Docker or a package install \(given them\)/,
    ],
    [
      {
        bundling: {
          commandHooks: { beforeBundling: () => [], beforeInstall: () => [], afterBundling: () => [] },
        },
      },
      /bundling.commandHooks: not supported, .* \(given it\)/,
    ],
  ])('refuses bundling options the consumer cannot be built with, naming them: %o', (props, message) => {
    expect(() => pipelineStack(props)).toThrow(message);
  });

  it("accepts an alias of the user's own, and the consumer's build takes it", () => {
    // Prepare
    const bundling = { esbuildArgs: { '--alias:lodash': 'lodash-es' } };
    // Act
    const options = consumerBuildOptions(
      {
        entry: 'consumer.ts',
        processorEntry: 'processor.ts',
        runtime: lambda.Runtime.NODEJS_LATEST,
        bundling,
      },
      '/out',
    );
    // Assess
    expect(() => pipelineStack({ bundling })).not.toThrow();
    expect(options.alias).toEqual({ lodash: 'lodash-es', 'pq-user-processor': path.resolve('processor.ts') });
  });
});
