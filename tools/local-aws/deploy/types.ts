/**
 * The shapes the local deployment reads (a synthesized CloudFormation template) and returns (the
 * physical names and ARNs moto gave each resource).
 */

/** A CloudFormation template as `Template.fromStack(stack).toJSON()` or cdk.out gives it. */
export interface CfnTemplate {
  readonly Parameters?: Readonly<Record<string, CfnParameter>>;
  readonly Conditions?: Readonly<Record<string, unknown>>;
  readonly Mappings?: Readonly<Record<string, Readonly<Record<string, Readonly<Record<string, unknown>>>>>>;
  readonly Resources?: Readonly<Record<string, CfnResource>>;
  readonly Outputs?: Readonly<Record<string, { readonly Value: unknown; readonly Condition?: string }>>;
}

export interface CfnParameter {
  readonly Type: string;
  readonly Default?: unknown;
}

export interface CfnResource {
  readonly Type: string;
  readonly Properties?: Readonly<Record<string, unknown>>;
  readonly DependsOn?: string | readonly string[];
  readonly Condition?: string;
  readonly Metadata?: Readonly<Record<string, unknown>>;
}

/** One resource of the local stack. */
export interface DeployedResource {
  readonly type: string;
  readonly physicalId: string;
  /** What `Fn::GetAtt` may ask for (Arn, QueueUrl, StreamArn...); `Ref` holds what `Ref` returns. */
  readonly attributes: Readonly<Record<string, string>>;
  /** Set when the type is not instantiated locally: why. physicalId and attributes are then synthetic. */
  readonly notInstantiated?: string;
}

export interface LocalFunction {
  readonly logicalId: string;
  readonly functionName: string;
  readonly arn: string;
  readonly handler: string;
  readonly runtime: string;
  readonly timeoutSeconds: number;
  readonly memoryMiB: number;
  /** The template's variables with every intrinsic resolved to the local resources. */
  readonly environment: Readonly<Record<string, string>>;
  /** Absolute path of the function's code asset directory (Metadata `aws:asset:path` under the assembly). */
  readonly assetPath?: string;
}

export interface LocalEventSourceMapping {
  readonly logicalId: string;
  /** The UUID moto gave the mapping: GetEventSourceMapping/UpdateEventSourceMapping take it. */
  readonly uuid: string;
  readonly functionName: string;
  /** The queue the template names (the local runner polls it); for Kafka, the MSK cluster's ARN or ''. */
  readonly eventSourceArn: string;
  /** A Kafka mapping's source, which the local Kafka runner reads; absent for SQS. */
  readonly kafka?: LocalKafkaSource;
  /** The empty queue moto's own mapping points at, so that moto never consumes the real one. */
  readonly decoyQueueUrl: string;
  readonly batchSize: number;
  readonly maximumBatchingWindowInSeconds: number;
  readonly maximumConcurrency?: number;
  readonly functionResponseTypes: readonly string[];
  readonly enabled: boolean;
}

/** What a Kafka mapping of the template reads: its topic, group and where to start. */
export interface LocalKafkaSource {
  readonly topic: string;
  /** The self-managed cluster's bootstrap servers; empty for MSK (its ARN is `eventSourceArn`). */
  readonly bootstrapServers: readonly string[];
  /** @default - the mapping's UUID, as Lambda's */
  readonly consumerGroupId?: string;
  readonly startingPosition: 'TRIM_HORIZON' | 'LATEST';
}

export interface LocalStateMachine {
  readonly logicalId: string;
  readonly arn: string;
  /** The definition as created in moto: resolved, substituted and translated (see asl-for-moto.ts). */
  readonly definition: string;
}

export interface LocalStack {
  readonly stackName: string;
  readonly region: string;
  readonly accountId: string;
  readonly resources: Readonly<Record<string, DeployedResource>>;
  readonly functions: readonly LocalFunction[];
  readonly eventSourceMappings: readonly LocalEventSourceMapping[];
  readonly stateMachines: readonly LocalStateMachine[];
  /** The template's Outputs, resolved. */
  readonly outputs: Readonly<Record<string, string>>;
}
