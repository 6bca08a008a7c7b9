import * as path from 'node:path';
import { type Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

/** The module specifier the consumer handler imports the user's processing module by. */
export const PROCESSOR_MODULE_ALIAS = 'pq-user-processor';

// The handler as ES modules, which esbuild can tree-shake: the TypeScript source in this
// repository; in the installed package, where this file is dist/lib/consumer-function.js, the
// ES module build (dist/esm) that 'poison-quarantine/runtime' also resolves to when bundled
// (docs/design.md, "The package").
const HANDLER_ENTRY =
  path.extname(__filename) === '.ts'
    ? path.join(__dirname, '..', 'lambdas', 'handlers', 'consumer.ts')
    : path.join(__dirname, '..', 'esm', 'lambdas', 'handlers', 'consumer.js');

export interface ConsumerFunctionProps {
  readonly processorEntry: string;
  readonly timeout: Duration;
  readonly memorySize: number;
  readonly logRetention: logs.RetentionDays;
  readonly environment: Readonly<Record<string, string>>;
  /** The user's settings of the function, passed through (PoisonQuarantineProps, checked there). */
  readonly vpc?: ec2.IVpc;
  readonly vpcSubnets?: ec2.SubnetSelection;
  readonly securityGroups?: ec2.ISecurityGroup[];
  readonly layers?: lambda.ILayerVersion[];
  readonly bundling?: nodejs.BundlingOptions;
  readonly tracing?: lambda.Tracing;
}

/**
 * The consumer: the project's wrapper (lambdas/handlers/consumer.ts) bundled together with the
 * user's processing module by a local esbuild (no Docker). Defaults: arm64 (cheaper per GB-s),
 * the newest Node.js runtime aws-cdk-lib knows, source maps for readable stack traces in the
 * quarantine evidence, its own log group with retention, and a role that may write only there.
 */
export class ConsumerFunction extends nodejs.NodejsFunction {
  constructor(scope: Construct, id: string, props: ConsumerFunctionProps) {
    const logGroup = new logs.LogGroup(scope, `${id}Logs`, {
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // An explicit role instead of AWSLambdaBasicExecutionRole: logs go to this log group only.
    const role = new iam.Role(scope, `${id}Role`, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: 'poison-quarantine consumer',
    });
    role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [logGroup.logGroupArn],
      }),
    );
    if (props.vpc) role.addToPolicy(networkInterfaces());
    super(scope, id, {
      entry: HANDLER_ENTRY,
      handler: 'handler',
      runtime: lambda.Runtime.NODEJS_LATEST,
      architecture: lambda.Architecture.ARM_64,
      timeout: props.timeout,
      memorySize: props.memorySize,
      logGroup,
      role,
      loggingFormat: lambda.LoggingFormat.JSON,
      environment: { ...props.environment, NODE_OPTIONS: '--enable-source-maps' },
      bundling: {
        // A lean bundle loads faster at cold start: minified, and the SDK's ES modules first
        // ('module' before 'main') so that esbuild drops the parts the consumer never calls.
        minify: true,
        mainFields: ['module', 'main'],
        // The map turns the evidence's stack heads back into file:line (NODE_OPTIONS above); it
        // needs no copy of the sources, which would nearly treble its size.
        sourceMap: true,
        sourcesContent: false,
        // The AWS SDK is bundled rather than taken from the runtime, so the version tested here
        // is the version that runs.
        externalModules: [],
        // esbuild's size table on every synth is noise; its warnings and errors still show.
        logLevel: nodejs.LogLevel.WARNING,
        ...props.bundling,
        // What the consumer needs stays (validateProps refuses a user's value that changes it).
        // Minified names would reach the stack heads (and the signatures that group quarantine
        // records, which must not change with every build); Node takes a function's name as kept.
        keepNames: true,
        esbuildArgs: {
          ...props.bundling?.esbuildArgs,
          [`--alias:${PROCESSOR_MODULE_ALIAS}`]: path.resolve(props.processorEntry),
        },
      },
      vpc: props.vpc,
      vpcSubnets: props.vpcSubnets,
      securityGroups: props.securityGroups,
      layers: props.layers,
      tracing: props.tracing,
    });
    if (props.vpc || (props.tracing ?? lambda.Tracing.DISABLED) !== lambda.Tracing.DISABLED) {
      Validations.of(role).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'Only with a vpc or tracing: Lambda manages the network interfaces of a function in a VPC, and ' +
          'X-Ray takes trace segments; neither supports resource-level permissions.',
      });
    }
  }
}

/**
 * What Lambda needs to attach a function in a VPC (AWSLambdaVPCAccessExecutionRole's EC2 actions,
 * without its logs grant): the role is ours, so CDK adds no managed policy to it.
 */
function networkInterfaces(): iam.PolicyStatement {
  return new iam.PolicyStatement({
    actions: [
      'ec2:CreateNetworkInterface',
      'ec2:DescribeNetworkInterfaces',
      'ec2:DescribeSubnets',
      'ec2:DeleteNetworkInterface',
      'ec2:AssignPrivateIpAddresses',
      'ec2:UnassignPrivateIpAddresses',
    ],
    resources: ['*'],
  });
}
