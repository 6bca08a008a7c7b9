import { Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';

export interface QuarantineStorageProps {
  readonly removalPolicy: RemovalPolicy;
  readonly objectLock: boolean;
  readonly noncurrentVersionDays: number;
  readonly serverAccessLogsBucket?: s3.IBucket;
}

/**
 * Where quarantined messages live: the exact content and evidence in S3 (up to 1 MiB, beyond a
 * DynamoDB item's 400 KB), the record and its status in DynamoDB.
 */
export class QuarantineStorage extends Construct {
  public readonly table: dynamodb.Table;
  public readonly bucket: s3.Bucket;

  constructor(scope: Construct, id: string, props: QuarantineStorageProps) {
    super(scope, id);
    this.table = new dynamodb.Table(this, 'Records', {
      partitionKey: { name: 'id', type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      removalPolicy: props.removalPolicy,
    });
    this.table.addGlobalSecondaryIndex({
      indexName: 'byStatus',
      partitionKey: { name: 'status', type: dynamodb.AttributeType.STRING },
      sortKey: { name: 'createdAt', type: dynamodb.AttributeType.STRING },
      projectionType: dynamodb.ProjectionType.ALL,
    });

    this.bucket = new s3.Bucket(this, 'Content', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: s3.BucketEncryption.S3_MANAGED,
      versioned: true,
      objectLockEnabled: props.objectLock,
      objectLockDefaultRetention: props.objectLock
        ? s3.ObjectLockRetention.governance(Duration.days(30))
        : undefined,
      serverAccessLogsBucket: props.serverAccessLogsBucket,
      serverAccessLogsPrefix: props.serverAccessLogsBucket ? 'poison-quarantine/' : undefined,
      lifecycleRules: [
        {
          id: 'expire-noncurrent-versions',
          noncurrentVersionExpiration: Duration.days(props.noncurrentVersionDays),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
      removalPolicy: props.removalPolicy,
    });
    if (!props.serverAccessLogsBucket) {
      Validations.of(this.bucket).acknowledge({
        id: 'AwsSolutions-S1',
        reason:
          'Server access logs need a second bucket the user owns; it is opt-in (serverAccessLogsBucket). ' +
          'Reads are limited to the operator grant, and CloudTrail data events record object access.',
      });
    }
  }
}
