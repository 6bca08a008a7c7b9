/**
 * AWS::S3::Bucket -> CreateBucket (Object Lock can only be switched on there), then one Put call
 * per configuration the template sets.
 */
import {
  type BucketLocationConstraint,
  CreateBucketCommand,
  type LifecycleRule,
  type OwnershipControls,
  PutBucketEncryptionCommand,
  PutBucketLifecycleConfigurationCommand,
  PutBucketOwnershipControlsCommand,
  PutBucketTaggingCommand,
  PutBucketVersioningCommand,
  PutObjectLockConfigurationCommand,
  PutPublicAccessBlockCommand,
  type ServerSideEncryptionRule,
  type Tag,
  type TransitionStorageClass,
} from '@aws-sdk/client-s3';
import type { InstantiatedType } from './resource-type';

type Json = Record<string, unknown>;

export const s3Bucket: InstantiatedType = {
  applies: [
    'BucketName',
    'VersioningConfiguration',
    'BucketEncryption',
    'PublicAccessBlockConfiguration',
    'LifecycleConfiguration',
    'ObjectLockEnabled',
    'ObjectLockConfiguration',
    'OwnershipControls',
    'Tags',
  ],
  ignores: {
    LoggingConfiguration: 'access logs are not written locally',
    MetricsConfigurations: 'no metrics flow locally',
    NotificationConfiguration: 'nothing consumes bucket notifications locally',
  },
  async create(properties, context) {
    const s3 = context.clients.s3;
    const Bucket =
      properties.string('BucketName') ?? context.generatedName({ maxLength: 63, lowercase: true });
    await s3.send(
      new CreateBucketCommand({
        Bucket,
        ObjectLockEnabledForBucket: properties.boolean('ObjectLockEnabled'),
        // us-east-1 is the one region that refuses a location constraint naming itself.
        CreateBucketConfiguration:
          context.region === 'us-east-1'
            ? undefined
            : { LocationConstraint: context.region as BucketLocationConstraint },
      }),
    );
    const versioning = properties.object('VersioningConfiguration');
    if (versioning) {
      await s3.send(new PutBucketVersioningCommand({ Bucket, VersioningConfiguration: versioning }));
    }
    const encryption = properties.object('BucketEncryption');
    if (encryption) {
      const Rules = (encryption.ServerSideEncryptionConfiguration as Json[]).map(encryptionRule);
      await s3.send(new PutBucketEncryptionCommand({ Bucket, ServerSideEncryptionConfiguration: { Rules } }));
    }
    const publicAccessBlock = properties.object('PublicAccessBlockConfiguration');
    if (publicAccessBlock) {
      await s3.send(
        new PutPublicAccessBlockCommand({ Bucket, PublicAccessBlockConfiguration: publicAccessBlock }),
      );
    }
    const lifecycle = properties.object('LifecycleConfiguration');
    if (lifecycle) {
      const Rules = (lifecycle.Rules as Json[]).map(lifecycleRule);
      await s3.send(
        new PutBucketLifecycleConfigurationCommand({ Bucket, LifecycleConfiguration: { Rules } }),
      );
    }
    const objectLock = properties.object('ObjectLockConfiguration');
    if (objectLock) {
      await s3.send(new PutObjectLockConfigurationCommand({ Bucket, ObjectLockConfiguration: objectLock }));
    }
    const ownership = properties.object('OwnershipControls');
    if (ownership) {
      await s3.send(
        new PutBucketOwnershipControlsCommand({
          Bucket,
          OwnershipControls: { Rules: ownership.Rules as OwnershipControls['Rules'] },
        }),
      );
    }
    const tags = properties.list('Tags');
    if (tags) await s3.send(new PutBucketTaggingCommand({ Bucket, Tagging: { TagSet: tags as Tag[] } }));
    const arn = `arn:${context.partition}:s3:::${Bucket}`;
    return {
      physicalId: Bucket,
      attributes: {
        Ref: Bucket,
        Arn: arn,
        DomainName: `${Bucket}.s3.amazonaws.com`,
        RegionalDomainName: `${Bucket}.s3.${context.region}.amazonaws.com`,
      },
    };
  },
};

/** The template says ServerSideEncryptionByDefault where the API says ApplyServerSideEncryptionByDefault. */
function encryptionRule(rule: Json): ServerSideEncryptionRule {
  return {
    ApplyServerSideEncryptionByDefault:
      rule.ServerSideEncryptionByDefault as ServerSideEncryptionRule['ApplyServerSideEncryptionByDefault'],
    BucketKeyEnabled: rule.BucketKeyEnabled as boolean | undefined,
  };
}

/** The template's lifecycle rule is flatter than the API's: `ExpirationInDays` is `Expiration.Days`, and so on. */
function lifecycleRule(rule: Json): LifecycleRule {
  const expiration = {
    Days: rule.ExpirationInDays as number | undefined,
    Date: rule.ExpirationDate ? new Date(String(rule.ExpirationDate)) : undefined,
    ExpiredObjectDeleteMarker: rule.ExpiredObjectDeleteMarker as boolean | undefined,
  };
  const tags = rule.TagFilters as { Key: string; Value: string }[] | undefined;
  return {
    ID: rule.Id as string | undefined,
    Status: rule.Status as LifecycleRule['Status'],
    Filter: filter(rule.Prefix as string | undefined, tags, rule),
    Expiration: Object.values(expiration).some((value) => value !== undefined) ? expiration : undefined,
    NoncurrentVersionExpiration:
      (rule.NoncurrentVersionExpiration as LifecycleRule['NoncurrentVersionExpiration']) ??
      (rule.NoncurrentVersionExpirationInDays === undefined
        ? undefined
        : { NoncurrentDays: rule.NoncurrentVersionExpirationInDays as number }),
    AbortIncompleteMultipartUpload:
      rule.AbortIncompleteMultipartUpload as LifecycleRule['AbortIncompleteMultipartUpload'],
    Transitions: (rule.Transitions as Json[] | undefined)?.map((transition) => ({
      StorageClass: transition.StorageClass as TransitionStorageClass,
      Days: transition.TransitionInDays as number | undefined,
      Date: transition.TransitionDate ? new Date(String(transition.TransitionDate)) : undefined,
    })),
    NoncurrentVersionTransitions: (rule.NoncurrentVersionTransitions as Json[] | undefined)?.map(
      (transition) => ({
        StorageClass: transition.StorageClass as TransitionStorageClass,
        NoncurrentDays: transition.TransitionInDays as number | undefined,
        NewerNoncurrentVersions: transition.NewerNoncurrentVersions as number | undefined,
      }),
    ),
  };
}

/** One condition is the filter itself; several go under `And`. No condition: the empty prefix, every object. */
function filter(
  prefix: string | undefined,
  tags: { Key: string; Value: string }[] | undefined,
  rule: Json,
): LifecycleRule['Filter'] {
  const sizes = {
    ObjectSizeGreaterThan:
      rule.ObjectSizeGreaterThan === undefined ? undefined : Number(rule.ObjectSizeGreaterThan),
    ObjectSizeLessThan: rule.ObjectSizeLessThan === undefined ? undefined : Number(rule.ObjectSizeLessThan),
  };
  const conditions = [prefix, ...(tags ?? []), sizes.ObjectSizeGreaterThan, sizes.ObjectSizeLessThan].filter(
    (condition) => condition !== undefined,
  );
  if (conditions.length > 1) return { And: { Prefix: prefix, Tags: tags, ...sizes } };
  if (tags?.length === 1) return { Tag: tags[0] };
  if (prefix !== undefined) return { Prefix: prefix };
  if (sizes.ObjectSizeGreaterThan !== undefined)
    return { ObjectSizeGreaterThan: sizes.ObjectSizeGreaterThan };
  if (sizes.ObjectSizeLessThan !== undefined) return { ObjectSizeLessThan: sizes.ObjectSizeLessThan };
  return { Prefix: '' };
}
