import { App, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { DemoStack } from '../../lib/demo-stack';

describe('cdk-nag AwsSolutions over the demo stack', () => {
  it('has no unacknowledged findings', () => {
    // Prepare
    const app = new App();
    new DemoStack(app, 'Demo');
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    // Act
    const act = () => app.synth();
    // Assess
    expect(act).not.toThrow();
  });

  it('has no unacknowledged findings once an operator role holds grantOperator', () => {
    // Prepare
    const app = new App();
    const stack = new DemoStack(app, 'Demo');
    const onCall = new iam.Role(stack, 'OnCall', { assumedBy: new iam.AccountRootPrincipal() });
    stack.pipeline.grantOperator(onCall);
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    // Act
    const act = () => app.synth();
    // Assess
    expect(act).not.toThrow();
  });
});
