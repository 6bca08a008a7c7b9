import * as path from 'node:path';
import { AssetHashType, type Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { buildConsumer, type ConsumerBuild } from './consumer-bundling';

// The handler as ES modules, which esbuild can tree-shake: the TypeScript source in this
// repository; in the installed package, where this file is dist/lib/consumer-function.js, the
// ES module build (dist/esm) that 'poison-quarantine/runtime' also resolves to when bundled
// (docs/design.md, "The package").
const HANDLER_ENTRY =
  path.extname(__filename) === '.ts'
    ? path.join(__dirname, '..', 'lambdas', 'handlers', 'consumer.ts')
    : path.join(__dirname, '..', 'esm', 'lambdas', 'handlers', 'consumer.js');

/** What {@link PoisonQuarantine} gives its {@link ConsumerFunction}. */
export interface ConsumerFunctionProps {
  /** Path of the user's processing module, bundled with the consumer. */
  readonly processorEntry: string;
  /** Timeout of the function. */
  readonly timeout: Duration;
  /** Memory of the function, in MiB. */
  readonly memorySize: number;
  /** Retention of the function's own log group. */
  readonly logRetention: logs.RetentionDays;
  /** The function's environment variables: the user's and the consumer's settings. */
  readonly environment: Readonly<Record<string, string>>;
  /** The user's settings of the function, passed through (PoisonQuarantineProps, checked there). */
  readonly vpc?: ec2.IVpc;
  /** Passed through from PoisonQuarantineProps `vpcSubnets`. */
  readonly vpcSubnets?: ec2.SubnetSelection;
  /** Passed through from PoisonQuarantineProps `securityGroups`. */
  readonly securityGroups?: ec2.ISecurityGroup[];
  /** Passed through from PoisonQuarantineProps `layers`. */
  readonly layers?: lambda.ILayerVersion[];
  /** Passed through from PoisonQuarantineProps `bundling`: merged over the construct's esbuild options. */
  readonly bundling?: nodejs.BundlingOptions;
  /** Passed through from PoisonQuarantineProps `tracing`. */
  readonly tracing?: lambda.Tracing;
}

/**
 * The consumer: the project's wrapper (lambdas/handlers/consumer.ts) bundled together with the
 * user's processing module by esbuild on this machine (no Docker), as split ES modules
 * (consumer-bundling.ts). Defaults: arm64 (cheaper per GB-s), the newest Node.js runtime
 * aws-cdk-lib knows, source maps for readable stack traces in the quarantine evidence, its own
 * log group with retention, and a role that may write only there.
 */
export class ConsumerFunction extends lambda.Function {
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
    const runtime = lambda.Runtime.NODEJS_LATEST;
    super(scope, id, {
      code: consumerCode({
        entry: HANDLER_ENTRY,
        processorEntry: props.processorEntry,
        runtime,
        bundling: props.bundling,
      }),
      handler: 'index.handler',
      runtime,
      architecture: lambda.Architecture.ARM_64,
      timeout: props.timeout,
      memorySize: props.memorySize,
      logGroup,
      role,
      loggingFormat: lambda.LoggingFormat.JSON,
      // No --enable-source-maps: the consumer maps its own stack traces, on the first failure
      // (lambdas/handlers/source-mapped-stacks.ts), where the flag costs every cold start.
      environment: props.environment,
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
 * The bundle as an asset, built locally whenever CDK bundles the stack; the Docker image is only
 * the type's due: esbuild is a dependency of this package, so the local build always runs, and a
 * failed build fails the synth with esbuild's errors.
 */
function consumerCode(build: ConsumerBuild): lambda.Code {
  return lambda.Code.fromAsset(path.dirname(build.entry), {
    assetHash: build.bundling?.assetHash,
    assetHashType: build.bundling?.assetHash === undefined ? AssetHashType.OUTPUT : AssetHashType.CUSTOM,
    bundling: {
      image: build.runtime.bundlingImage,
      local: {
        tryBundle: (outputDir) => {
          buildConsumer(build, outputDir);
          return true;
        },
      },
    },
  });
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
