import { Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { QUARANTINE_INDEXES } from '../contract/quarantine';
import { QUARANTINE_PREFIX } from '../contract/storage';

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
    // pq list, status and the console: the records of a status, newest first.
    this.table.addGlobalSecondaryIndex({
      indexName: QUARANTINE_INDEXES.byStatus,
      partitionKey: { name: 'status', type: dynamodb.AttributeType.STRING },
      sortKey: { name: 'createdAt', type: dynamodb.AttributeType.STRING },
      projectionType: dynamodb.ProjectionType.ALL,
    });
    // pq find: every record of a message key, or of an SQS message id, without reading the rest.
    // Only the id is projected: find reads each record whole (as pq show does).
    for (const [indexName, attribute] of [
      [QUARANTINE_INDEXES.byMessageKey, 'messageKey'],
      [QUARANTINE_INDEXES.byMessageId, 'messageId'],
    ] as const) {
      this.table.addGlobalSecondaryIndex({
        indexName,
        partitionKey: { name: attribute, type: dynamodb.AttributeType.STRING },
        sortKey: { name: 'createdAt', type: dynamodb.AttributeType.STRING },
        projectionType: dynamodb.ProjectionType.KEYS_ONLY,
      });
    }

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
    this.refuseOverwrites();
    if (!props.serverAccessLogsBucket) {
      Validations.of(this.bucket).acknowledge({
        id: 'AwsSolutions-S1',
        reason:
          'Server access logs need a second bucket the user owns; it is opt-in (serverAccessLogsBucket). ' +
          'Reads are limited to the operator grant, and CloudTrail data events record object access.',
      });
    }
  }

  /** ARN of the byStatus index, for Query permissions. */
  public get byStatusIndexArn(): string {
    return this.indexArn(QUARANTINE_INDEXES.byStatus);
  }

  /** ARNs of the indexes pq find queries. */
  public get findIndexArns(): string[] {
    return [this.indexArn(QUARANTINE_INDEXES.byMessageKey), this.indexArn(QUARANTINE_INDEXES.byMessageId)];
  }

  private indexArn(name: string): string {
    return `${this.table.tableArn}/index/${name}`;
  }

  /**
   * Quarantined content is written once and never replaced. The consumer's If-None-Match is only
   * a client's promise; this makes S3 refuse, for every principal, a put under the prefix that
   * lacks it (the user guide's "Enforce conditional writes"). Object creations carry
   * s3:ObjectCreationOperation; multipart's CreateMultipartUpload and UploadPart do not and take
   * no conditional header, so only their CompleteMultipartUpload must carry it. Only the
   * consumer's writer puts here, always with If-None-Match; CopyObject into the prefix is refused.
   */
  private refuseOverwrites(): void {
    this.bucket.addToResourcePolicy(
      new iam.PolicyStatement({
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: ['s3:PutObject'],
        resources: [this.bucket.arnForObjects(`${QUARANTINE_PREFIX}*`)],
        conditions: {
          Null: { 's3:if-none-match': 'true' },
          Bool: { 's3:ObjectCreationOperation': 'true' },
        },
      }),
    );
  }
}
