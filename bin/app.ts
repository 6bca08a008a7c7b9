#!/usr/bin/env node
// The CDK app: `npx cdk synth` / `npx cdk deploy` deploy the demo stack (no credentials are
// needed to synthesize). Use the PoisonQuarantine construct from lib/ in your own app.
import { App } from 'aws-cdk-lib';
import { DemoStack } from '../lib/demo-stack';

const app = new App();
new DemoStack(app, 'PoisonQuarantineDemo', {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
