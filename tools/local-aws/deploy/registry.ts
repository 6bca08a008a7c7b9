/**
 * Which resource types the local deployment creates in moto, and which it only records, with the
 * reason. A type on neither list stops the deployment: a silent skip would rehearse a different
 * system from the one deployed.
 */
import { dynamodbGlobalTable, dynamodbTable } from './dynamodb';
import { lambdaEventSourceMapping } from './event-source-mapping';
import { iamRole } from './iam';
import { lambdaFunction } from './lambda-function';
import type { CreateContext, InstantiatedType, NotInstantiatedType } from './resource-type';
import { s3Bucket } from './s3';
import { snsSubscription, snsTopic } from './sns';
import { sqsQueue } from './sqs';
import { stepFunctionsStateMachine } from './step-functions';

export const INSTANTIATED_TYPES: Readonly<Record<string, InstantiatedType>> = {
  'AWS::SQS::Queue': sqsQueue,
  'AWS::DynamoDB::Table': dynamodbTable,
  'AWS::DynamoDB::GlobalTable': dynamodbGlobalTable,
  'AWS::S3::Bucket': s3Bucket,
  'AWS::SNS::Topic': snsTopic,
  // Instantiated because moto delivers SNS -> SQS in-process: a fan-out works locally.
  'AWS::SNS::Subscription': snsSubscription,
  // moto's CreateFunction refuses a role it does not know.
  'AWS::IAM::Role': iamRole,
  'AWS::Lambda::Function': lambdaFunction,
  'AWS::Lambda::EventSourceMapping': lambdaEventSourceMapping,
  'AWS::StepFunctions::StateMachine': stepFunctionsStateMachine,
};

const RESOURCE_POLICY = 'moto does not enforce resource policies';
const IAM_NOT_ENFORCED = 'moto does not enforce IAM';

export const NOT_INSTANTIATED_TYPES: Readonly<Record<string, NotInstantiatedType>> = {
  'AWS::IAM::Policy': { reason: IAM_NOT_ENFORCED, attributes: named },
  'AWS::IAM::ManagedPolicy': {
    reason: IAM_NOT_ENFORCED,
    attributes: (_, context) => ({
      Ref: `arn:${context.partition}:iam::${context.accountId}:policy/${name(context)}`,
    }),
  },
  'AWS::SQS::QueuePolicy': { reason: RESOURCE_POLICY, attributes: named },
  'AWS::S3::BucketPolicy': { reason: RESOURCE_POLICY, attributes: named },
  'AWS::SNS::TopicPolicy': { reason: RESOURCE_POLICY, attributes: named },
  'AWS::Lambda::Permission': { reason: RESOURCE_POLICY, attributes: named },
  'AWS::Logs::LogGroup': {
    reason: 'nothing runs in moto that logs (the local runner logs to its own output)',
    attributes: (properties, context) => {
      const logGroupName = properties.string('LogGroupName') ?? name(context);
      const arn = `arn:${context.partition}:logs:${context.region}:${context.accountId}:log-group:${logGroupName}:*`;
      return { Ref: logGroupName, Arn: arn };
    },
  },
  'AWS::Logs::MetricFilter': { reason: 'no logs, so no metrics, flow locally', attributes: named },
  'AWS::CloudWatch::Dashboard': {
    reason: 'no metrics flow locally, so it would show nothing',
    attributes: named,
  },
  'AWS::CloudWatch::Alarm': {
    reason: 'no metrics flow locally, so no alarm could fire',
    attributes: (properties, context) => {
      const alarmName = properties.string('AlarmName') ?? name(context);
      return {
        Ref: alarmName,
        Arn: `arn:${context.partition}:cloudwatch:${context.region}:${context.accountId}:alarm:${alarmName}`,
      };
    },
  },
  'AWS::KMS::Key': {
    reason: 'moto does not encrypt with it; references get a synthetic key ARN, which moto stores unchecked',
    attributes: (_, context) => {
      const keyId = name(context);
      return {
        Ref: keyId,
        KeyId: keyId,
        Arn: `arn:${context.partition}:kms:${context.region}:${context.accountId}:key/${keyId}`,
      };
    },
  },
  'AWS::KMS::Alias': {
    reason: 'its key is not instantiated either',
    attributes: (properties) => ({ Ref: properties.requiredString('AliasName') }),
  },
  'Custom::S3AutoDeleteObjects': {
    reason: 'it empties a bucket when the stack is deleted; a local stack goes with its moto',
  },
  'AWS::CDK::Metadata': { reason: "CDK's usage analytics record" },
};

function name(context: CreateContext): string {
  return context.generatedName({ maxLength: 128 });
}

function named(_: unknown, context: CreateContext): Record<string, string> {
  return { Ref: name(context) };
}
