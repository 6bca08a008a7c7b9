/**
 * A Kafka topic as the consumer's source, instead of an SQS queue: what a user states of it
 * ({@link KafkaSourceProps}) and the problems of those settings, each naming the value given.
 * lib/kafka-source.ts builds the event source mapping and the grants Lambda needs from them.
 */
import { Token } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { AuthenticationMethod } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';

/**
 * A Kafka topic the consumer reads through Lambda's Kafka event source mapping: on an Amazon MSK
 * cluster (`clusterArn`) or a self-managed one (`bootstrapServers`), one of the two.
 */
export interface KafkaSourceProps {
  /**
   * The Amazon MSK cluster's ARN (`arn:aws:kafka:<region>:<account>:cluster/<name>/<uuid>`).
   * Give either this or `bootstrapServers`.
   * @default - none: a self-managed cluster at `bootstrapServers`
   */
  readonly clusterArn?: string;

  /**
   * A self-managed cluster's bootstrap brokers, `host:port` each (1 to 10). Give either this or
   * `clusterArn`.
   * @default - none: the MSK cluster `clusterArn`
   */
  readonly bootstrapServers?: string[];

  /** The topic the mapping reads (1 to 249 characters of `A-Z a-z 0-9 . _ -`). */
  readonly topic: string;

  /**
   * The consumer group the mapping joins (1 to 200 characters of `A-Z a-z 0-9 - / * : _ + = . @`).
   * Lambda cannot change it once the mapping exists.
   * @default - Lambda's default: the mapping's UUID
   */
  readonly consumerGroupId?: string;

  /**
   * Where a consumer group without committed offsets starts reading.
   * @default lambda.StartingPosition.TRIM_HORIZON
   */
  readonly startingPosition?: lambda.StartingPosition;

  /**
   * Half-open probes a record may fail before it is quarantined as `receive-limit` (1 to 1,000).
   * Kafka counts no deliveries and no record can probe past the one at the head of its partition,
   * so this count stands in for an SQS queue's redrive limit: without it a record that fails
   * every probe would hold its partition, and the paused consumer, until an operator acts. With
   * the default cool-downs the tenth probe comes about four hours after the first; a lower count
   * frees the partition sooner and quarantines a healthy record sooner in a long outage.
   * @default 10
   */
  readonly maxFailedProbes?: number;

  /**
   * Provisioned mode: the pollers Lambda keeps for the mapping (1 to 200 at least, up to 2000 at
   * most), with partial batch responses (`ReportBatchItemFailures`) turned on. A payload of several
   * partitions with a record that stays then holds that record's partition alone, and the others
   * are committed; provisioned pollers are billed by the hour (docs/costs.md).
   * @default - on-demand pollers: a payload with a record that stays fails whole, and its other
   * partitions wait with it, for as many invocations as it stays
   */
  readonly provisionedPollerConfig?: lambda.ProvisionedPollerConfig;

  /**
   * The Secrets Manager secret Lambda authenticates with: SASL/SCRAM or SASL/PLAIN credentials,
   * or an mTLS client certificate, as `authenticationMethod` says. The consumer's role may read it.
   * @default - none: IAM authentication on an MSK cluster; unauthenticated brokers in `vpc` for a
   * self-managed cluster (brokers reached over the internet need a secret)
   */
  readonly secret?: secretsmanager.ISecret;

  /**
   * What `secret` holds. An MSK cluster takes SASL_SCRAM_512_AUTH or CLIENT_CERTIFICATE_TLS_AUTH;
   * a self-managed one any of the four. Needs a `secret`.
   * @default AuthenticationMethod.SASL_SCRAM_512_AUTH
   */
  readonly authenticationMethod?: AuthenticationMethod;

  /**
   * Self-managed only: the VPC the brokers are reachable in; Lambda's pollers reach them from
   * `vpcSubnets` with `securityGroup`. (An MSK cluster is reached through its own network.)
   * @default - none: the brokers are reachable over the internet
   */
  readonly vpc?: ec2.IVpc;

  /**
   * Self-managed only, with `vpc`: the subnets Lambda's pollers reach the brokers from.
   * @default - the VPC's private subnets
   */
  readonly vpcSubnets?: ec2.SubnetSelection;

  /**
   * Self-managed only, required with `vpc`: the security group of Lambda's pollers, which the
   * brokers must accept.
   * @default - none (required with `vpc`)
   */
  readonly securityGroup?: ec2.ISecurityGroup;
}

/** Lambda's limit of a Kafka mapping's function timeout, in seconds (14 minutes). */
export const KAFKA_MAX_CONSUMER_TIMEOUT_SECONDS = 840;

/** The authentication methods an MSK cluster's mapping takes with a secret. */
const MSK_AUTHENTICATION = [
  AuthenticationMethod.SASL_SCRAM_512_AUTH,
  AuthenticationMethod.CLIENT_CERTIFICATE_TLS_AUTH,
] as const;

const MSK_CLUSTER_ARN = /^arn:[^:]+:kafka:[^:]+:\d{12}:cluster\/[^/]+\/[^/]+$/;
/** Lambda's pattern of a self-managed Kafka endpoint: a host name or IPv4 address and a port. */
const BOOTSTRAP_SERVER =
  /^(([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])\.)*([A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9-]*[A-Za-z0-9]):[0-9]{1,5}$/;
const MAX_BOOTSTRAP_SERVERS = 10;
const TOPIC = /^[A-Za-z0-9._-]{1,249}$/;
const CONSUMER_GROUP_ID = /^[a-zA-Z0-9\-/*:_+=.@]{1,200}$/;
/** As an SQS redrive's maxReceiveCount, for which it stands. */
const MAX_FAILED_PROBES = 1000;
/** Lambda's limits of a provisioned Kafka mapping's pollers. */
const MAX_MINIMUM_POLLERS = 200;
const MAX_MAXIMUM_POLLERS = 2000;

const known = (value: string) => !Token.isUnresolved(value);

/** Every problem of a Kafka source's settings, each naming the value given. */
export function kafkaSourceProblems(kafka: KafkaSourceProps): string[] {
  return [
    ...clusterProblems(kafka),
    ...topicAndGroupProblems(kafka),
    ...failedProbesProblems(kafka),
    ...pollerProblems(kafka),
    ...authenticationProblems(kafka),
    ...networkProblems(kafka),
  ];
}

function clusterProblems(kafka: KafkaSourceProps): string[] {
  const { clusterArn, bootstrapServers } = kafka;
  if (clusterArn === undefined && bootstrapServers === undefined) {
    return ['kafka needs either clusterArn (Amazon MSK) or bootstrapServers (self-managed) (given neither)'];
  }
  if (clusterArn !== undefined && bootstrapServers !== undefined) {
    return [
      `kafka takes either clusterArn or bootstrapServers, not both (given clusterArn ${clusterArn} and bootstrapServers ${bootstrapServers.join(',')})`,
    ];
  }
  if (clusterArn !== undefined) {
    return known(clusterArn) && !MSK_CLUSTER_ARN.test(clusterArn)
      ? [
          `kafka.clusterArn must be an MSK cluster ARN, arn:<partition>:kafka:<region>:<account>:cluster/<name>/<uuid> (given "${clusterArn}")`,
        ]
      : [];
  }
  const servers = bootstrapServers ?? [];
  if (Token.isUnresolved(servers)) return [];
  if (servers.length < 1 || servers.length > MAX_BOOTSTRAP_SERVERS) {
    return [
      `kafka.bootstrapServers must list 1 to ${MAX_BOOTSTRAP_SERVERS} brokers (given ${servers.length})`,
    ];
  }
  const malformed = servers.filter((server) => known(server) && !BOOTSTRAP_SERVER.test(server));
  return malformed.length > 0
    ? [`kafka.bootstrapServers must be host:port each (given ${malformed.map((s) => `"${s}"`).join(', ')})`]
    : [];
}

function topicAndGroupProblems(kafka: KafkaSourceProps): string[] {
  const errors: string[] = [];
  const { topic, consumerGroupId, startingPosition } = kafka;
  if (known(topic) && (!TOPIC.test(topic) || topic === '.' || topic === '..')) {
    errors.push(`kafka.topic must be 1 to 249 characters of A-Z a-z 0-9 . _ - (given "${topic}")`);
  }
  if (consumerGroupId !== undefined && known(consumerGroupId) && !CONSUMER_GROUP_ID.test(consumerGroupId)) {
    errors.push(
      `kafka.consumerGroupId must be 1 to 200 characters of A-Z a-z 0-9 - / * : _ + = . @ (given "${consumerGroupId}")`,
    );
  }
  if (
    startingPosition !== undefined &&
    startingPosition !== lambda.StartingPosition.TRIM_HORIZON &&
    startingPosition !== lambda.StartingPosition.LATEST
  ) {
    errors.push(`kafka.startingPosition must be TRIM_HORIZON or LATEST (given ${startingPosition})`);
  }
  return errors;
}

function failedProbesProblems({ maxFailedProbes }: KafkaSourceProps): string[] {
  if (maxFailedProbes === undefined || Token.isUnresolved(maxFailedProbes)) return [];
  return Number.isInteger(maxFailedProbes) && maxFailedProbes >= 1 && maxFailedProbes <= MAX_FAILED_PROBES
    ? []
    : [`kafka.maxFailedProbes must be an integer from 1 to ${MAX_FAILED_PROBES} (given ${maxFailedProbes})`];
}

/** Lambda's ranges of provisioned pollers, each bound an integer. */
function pollerProblems({ provisionedPollerConfig: pollers }: KafkaSourceProps): string[] {
  if (pollers === undefined) return [];
  const { minimumPollers: min, maximumPollers: max } = pollers;
  const outside = (value: number | undefined, limit: number) =>
    value !== undefined &&
    !Token.isUnresolved(value) &&
    !(Number.isInteger(value) && value >= 1 && value <= limit);
  const errors: string[] = [];
  if (outside(min, MAX_MINIMUM_POLLERS))
    errors.push(
      `kafka.provisionedPollerConfig.minimumPollers must be an integer from 1 to ${MAX_MINIMUM_POLLERS} (given ${min})`,
    );
  if (outside(max, MAX_MAXIMUM_POLLERS))
    errors.push(
      `kafka.provisionedPollerConfig.maximumPollers must be an integer from 1 to ${MAX_MAXIMUM_POLLERS} (given ${max})`,
    );
  if (
    errors.length === 0 &&
    min !== undefined &&
    max !== undefined &&
    !Token.isUnresolved(min) &&
    !Token.isUnresolved(max) &&
    min > max
  )
    errors.push(
      `kafka.provisionedPollerConfig.minimumPollers must not exceed maximumPollers (given ${min} and ${max})`,
    );
  return errors;
}

function authenticationProblems(kafka: KafkaSourceProps): string[] {
  const method = kafka.authenticationMethod;
  if (method === undefined) return [];
  if (kafka.secret === undefined) {
    return [`kafka.authenticationMethod needs a secret (given authenticationMethod ${method} and no secret)`];
  }
  const msk = kafka.clusterArn !== undefined && kafka.bootstrapServers === undefined;
  return msk && !(MSK_AUTHENTICATION as readonly AuthenticationMethod[]).includes(method)
    ? [
        `kafka.authenticationMethod of an MSK cluster must be ${MSK_AUTHENTICATION.join(' or ')} (given ${method})`,
      ]
    : [];
}

/** A VPC is a self-managed cluster's; there it needs a security group, and without it a secret. */
function networkProblems(kafka: KafkaSourceProps): string[] {
  const placed = (['vpc', 'vpcSubnets', 'securityGroup'] as const).filter(
    (name) => kafka[name] !== undefined,
  );
  if (kafka.bootstrapServers === undefined) {
    return kafka.clusterArn !== undefined && placed.length > 0
      ? [
          `kafka.${placed.join(', kafka.')}: Lambda reaches an MSK cluster through the cluster's own network; only a self-managed cluster takes them (given clusterArn and ${placed.join(', ')})`,
        ]
      : [];
  }
  if (kafka.vpc === undefined) {
    const errors = placed.map((name) => `kafka.${name} needs kafka.vpc (given ${name} and no vpc)`);
    if (kafka.secret === undefined) {
      errors.push(
        'kafka needs a secret for brokers reached over the internet, or a vpc to reach them in (given bootstrapServers, no secret and no vpc)',
      );
    }
    return errors;
  }
  return kafka.securityGroup === undefined
    ? [
        "kafka.vpc needs kafka.securityGroup, the security group of Lambda's pollers (given vpc and no securityGroup)",
      ]
    : [];
}
