/**
 * Issue 38, item 1: pipelines reading a Kafka topic pass cdk-nag's AwsSolutions checks and
 * cfn-lint, as the SQS pipeline does (nag.test.ts, cfn-lint.test.ts): on Amazon MSK with IAM
 * authentication (its cluster ARN known at synth or only at deployment) or a secret, and on a
 * self-managed cluster in a VPC or on the internet.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { CfnParameter, type Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, describe, expect, it } from 'vitest';
import type { PoisonQuarantineProps } from '../../lib/poison-quarantine-props';
import {
  BOOTSTRAP_SERVERS,
  credentials,
  kafkaPipeline,
  mskSource,
  network,
  selfManagedSource,
  TOPIC,
} from './kafka-fixtures';
import { templateApp } from './synth';

const cfnLint = path.join(__dirname, '..', '..', '.venv', 'bin', 'cfn-lint');
// As cfn-lint.test.ts: CDK's explicit DependsOn on a function's or state machine's role.
const IGNORED_CHECKS = ['W3005'];

/** An MSK cluster ARN only known at deployment: a template parameter. */
const clusterParameter = (stack: Stack) =>
  new CfnParameter(stack, 'ClusterArn', {
    type: 'String',
    default: 'arn:aws:kafka:eu-west-1:111111111111:cluster/orders/1',
  }).valueAsString;

const SOURCES: [string, (stack: Stack) => Partial<PoisonQuarantineProps>][] = [
  ['MSK with IAM authentication', () => ({ kafka: mskSource() })],
  [
    'MSK whose cluster ARN is a deploy-time value',
    (stack) => ({ kafka: { clusterArn: clusterParameter(stack), topic: TOPIC } }),
  ],
  [
    'MSK with SASL/SCRAM and a consumer group',
    (stack) => ({ kafka: { ...mskSource(), secret: credentials(stack), consumerGroupId: 'pq-orders' } }),
  ],
  ['a self-managed cluster in a VPC', (stack) => ({ kafka: selfManagedSource(stack) })],
  [
    'MSK with provisioned pollers and partial batch responses',
    () => ({ kafka: { ...mskSource(), provisionedPollerConfig: { minimumPollers: 1, maximumPollers: 3 } } }),
  ],
  [
    'a self-managed cluster on the internet, its secret known by name',
    (stack) => ({
      kafka: {
        bootstrapServers: BOOTSTRAP_SERVERS,
        topic: TOPIC,
        secret: secretsmanager.Secret.fromSecretNameV2(stack, 'ByName', 'kafka/orders'),
      },
    }),
  ],
  [
    'a self-managed cluster in a VPC without credentials',
    (stack) => ({ kafka: { bootstrapServers: BOOTSTRAP_SERVERS, topic: TOPIC, ...network(stack) } }),
  ],
];

/**
 * cfn-lint takes seconds a template: an MSK cluster known at deployment (its IAM ARNs built in
 * CloudFormation), MSK with a secret and a group, a self-managed cluster in a VPC, and MSK in
 * provisioned mode.
 */
const LINTED = [SOURCES[1], SOURCES[2], SOURCES[3], SOURCES[4]] as typeof SOURCES;

describe('cdk-nag AwsSolutions over pipelines reading a Kafka topic', () => {
  it.each(SOURCES)('has no unacknowledged findings: %s, with an operator role', (_, props) => {
    // Prepare
    const app = templateApp();
    const { stack, pipeline } = kafkaPipeline(props, app);
    pipeline.grantOperator(new iam.Role(stack, 'OnCall', { assumedBy: new iam.AccountRootPrincipal() }));
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    // Act
    const act = () => app.synth();
    // Assess
    expect(act).not.toThrow();
  });
});

describe('the synthesized Kafka templates, linted', () => {
  const outdir = mkdtempSync(path.join(tmpdir(), 'pq-kafka-cfn-lint-'));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('cfn-lint reports nothing on an MSK and a self-managed pipeline', () => {
    // Prepare: one app, one stack per source; CDK's own validation strict, as cfn-lint.test.ts has it.
    const app = templateApp({
      outdir,
      builtinCloudFormationValidation: true,
      context: { '@aws-cdk/core:validateAgainstDefaultRules': true },
    });
    const stacks = LINTED.map(([, props], index) => kafkaPipeline(props, app, `Kafka${index}`).stack);
    const assembly = app.synth();
    const templates = stacks.map((stack) =>
      path.join(assembly.directory, assembly.getStackByName(stack.stackName).templateFile),
    );
    // Act
    const result = spawnSync(cfnLint, ['--ignore-checks', ...IGNORED_CHECKS, '--', ...templates], {
      encoding: 'utf8',
    });
    // Assess: any finding is printed and makes the exit status non-zero.
    expect(`${result.stdout}${result.stderr}`).toBe('');
    expect(result.status).toBe(0);
  });
});
