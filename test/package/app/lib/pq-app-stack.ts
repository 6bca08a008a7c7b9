import * as path from 'node:path';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as cdk from 'aws-cdk-lib/core';
import type { Construct } from 'constructs';
import { PoisonQuarantine } from 'poison-quarantine';

export class PqAppStack extends cdk.Stack {
  constructor(scope: Construct, id: string, props?: cdk.StackProps) {
    super(scope, id, props);

    const pipeline = new PoisonQuarantine(this, 'Orders', {
      processorEntry: path.join(__dirname, 'orders-worker.ts'),
      attemptLimit: 3,
    });
    pipeline.grantOperator(new iam.Role(this, 'OnCall', { assumedBy: new iam.AccountRootPrincipal() }));
  }
}
