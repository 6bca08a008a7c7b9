import { Stack, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { DemoStack } from '../../lib/demo-stack';
import { PoisonQuarantine } from '../../lib/poison-quarantine';
import { FIXTURE_PROCESSOR, templateApp } from './synth';

describe('cdk-nag AwsSolutions over the demo stack', () => {
  it('has no unacknowledged findings', () => {
    // Prepare
    const app = templateApp();
    new DemoStack(app, 'Demo');
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    // Act
    const act = () => app.synth();
    // Assess
    expect(act).not.toThrow();
  });

  it('has no unacknowledged findings once an operator role holds grantOperator', () => {
    // Prepare
    const app = templateApp();
    const stack = new DemoStack(app, 'Demo');
    const onCall = new iam.Role(stack, 'OnCall', { assumedBy: new iam.AccountRootPrincipal() });
    stack.pipeline.grantOperator(onCall);
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    // Act
    const act = () => app.synth();
    // Assess
    expect(act).not.toThrow();
  });

  it('has no unacknowledged findings in a stack with an explicit account and region', () => {
    // Prepare: the findings of grants on execution ARNs name the region and account as given.
    const app = templateApp();
    const stack = new Stack(app, 'Pinned', { env: { account: '111111111111', region: 'eu-west-1' } });
    const pipeline = new PoisonQuarantine(stack, 'Pipeline', { processorEntry: FIXTURE_PROCESSOR });
    pipeline.grantOperator(new iam.Role(stack, 'OnCall', { assumedBy: new iam.AccountRootPrincipal() }));
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    // Act
    const act = () => app.synth();
    // Assess
    expect(act).not.toThrow();
  });

  it('has no unacknowledged findings with the consumer in a VPC and traced', () => {
    // Prepare: the wildcard grants Lambda needs for network interfaces and X-Ray segments.
    const app = templateApp();
    const stack = new Stack(app, 'Private', { env: { account: '111111111111', region: 'eu-west-1' } });
    const vpc = ec2.Vpc.fromVpcAttributes(stack, 'Vpc', {
      vpcId: 'vpc-0a1b2c3d4e5f60718',
      availabilityZones: ['eu-west-1a'],
      privateSubnetIds: ['subnet-0a0a0a0a0a0a0a0a0'],
    });
    new PoisonQuarantine(stack, 'Pipeline', {
      processorEntry: FIXTURE_PROCESSOR,
      vpc,
      tracing: lambda.Tracing.ACTIVE,
    });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    // Act
    const act = () => app.synth();
    // Assess
    expect(act).not.toThrow();
  });
});
