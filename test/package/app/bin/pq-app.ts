#!/usr/bin/env node
// A user's CDK app as `cdk init app --language typescript` lays it out, using the installed package.
import * as cdk from 'aws-cdk-lib/core';
import { PqAppStack } from '../lib/pq-app-stack';

const app = new cdk.App();
new PqAppStack(app, 'PqAppStack');
