/**
 * Finds a deployment from its consumer function, the same way against AWS, LocalStack and the
 * embedded moto: the function's environment names the tables, bucket, queue and state machines
 * (contract/env.ts, read with the consumer's own parseConfig), and its event source mapping is
 * the one Lambda lists for it. Nothing else has to be configured on the operator's machine.
 */

import { BackstopQueue } from '../lambdas/adapters/backstop-queue';
import { type AwsClients, createClients } from '../lambdas/adapters/clients';
import {
  callerArn,
  functionEnvironment,
  type MappingInfo,
  sourceQueueMapping,
} from '../lambdas/adapters/deployment-lookup';
import { AwsKafkaAccess, type AwsKafkaAccessOptions } from '../lambdas/adapters/kafka-access';
import { KafkaTopics } from '../lambdas/adapters/kafka-topic';
import { Operations } from '../lambdas/adapters/operations';
import { OperatorControl } from '../lambdas/adapters/operator-control';
import { OperatorControlState } from '../lambdas/adapters/operator-control-state';
import { OperatorLedger } from '../lambdas/adapters/operator-ledger';
import { QuarantineRecords } from '../lambdas/adapters/quarantine-reader';
import { QuarantineWriter } from '../lambdas/adapters/quarantine-writer';
import { ReplayClaims } from '../lambdas/adapters/replay-claims';
import { SourceQueue } from '../lambdas/adapters/source-queue';
import { type ConsumerConfig, parseConfig } from '../lambdas/core/config';
import type { KafkaTopicPort } from '../lambdas/ports/kafka-topic';
import { NotFound, Refused, UsageError } from './errors';
import { kafkaCluster } from './kafka-cluster';
import { kafkaConnection } from './kafka-connection';
import { RefusingReplayClaims } from './replay-claims';

export interface Target {
  readonly functionName?: string;
  readonly region?: string;
  readonly endpoint?: string;
  /** A profile of the shared AWS config files: its credentials, and its region unless one is given. */
  readonly profile?: string;
  /** Kafka: the brokers a replay produces to, instead of the consumer's PQ_KAFKA_CLUSTER (`--kafka-bootstrap`). */
  readonly kafkaBootstrap?: string;
}

/** A Kafka consumer's source, and its cluster as a replay produces to it. */
export interface KafkaSource {
  readonly cluster: string;
  readonly topic: string;
  /**
   * The cluster's topics, connected on first use as the consumer's mapping connects
   * (cli/kafka-connection.ts); a UsageError where pq cannot tell where the brokers are (a cluster
   * that is neither an MSK cluster's ARN nor bootstrap servers, and no --kafka-bootstrap), before
   * anything is read or changed.
   */
  topics(): KafkaTopicPort;
  /** Closes the connection `topics()` opened, if any (a command that produced closes it when done). */
  close(): Promise<void>;
}

export interface Deployment {
  readonly functionName: string;
  readonly config: ConsumerConfig;
  readonly mapping: MappingInfo | undefined;
  readonly clients: AwsClients;
  readonly records: QuarantineRecords;
  readonly ledger: OperatorLedger;
  readonly control: OperatorControlState;
  readonly controlItems: OperatorControl;
  readonly claims: RefusingReplayClaims;
  /** SQS only: the source queue (a Kafka consumer has none: `kafka`). */
  readonly queue: SourceQueue;
  /** Kafka only: the topic the consumer reads and its cluster; undefined for an SQS source. */
  readonly kafka: KafkaSource | undefined;
  readonly operations: Operations;
  /** The source queue's dead-letter queue, from its redrive policy; undefined without one (and for Kafka). Asked once. */
  backstop(): Promise<BackstopQueue | undefined>;
  /** The consumer's own writer of quarantine content (`pq backstop take` puts a message's bytes). */
  readonly content: QuarantineWriter;
  /** The caller's ARN (STS), for the audit (rule 4); asked once. */
  whoAmI(): Promise<string>;
}

export async function resolveDeployment(target: Target): Promise<Deployment> {
  const functionName = target.functionName?.trim();
  if (!functionName) {
    throw new UsageError('which consumer? pass --function NAME (or set PQ_FUNCTION)');
  }
  const clientOptions = {
    ...(target.region ? { region: target.region } : {}),
    ...(target.endpoint ? { endpoint: target.endpoint } : {}),
    ...(target.profile ? { profile: target.profile } : {}),
  };
  const clients = createClients(clientOptions);
  const config = await consumerConfig(clients, functionName, target.profile);
  const mapping = await sourceQueueMapping(clients.lambda, functionName, mappingSource(config));
  const { dynamodb, s3, sqs, sfn, sts } = clients;
  let caller: Promise<string> | undefined;
  let backstop: Promise<BackstopQueue | undefined> | undefined;
  return {
    functionName,
    config,
    mapping,
    clients,
    records: new QuarantineRecords(s3, dynamodb, config.quarantineBucket, config.quarantineTable),
    ledger: new OperatorLedger(dynamodb, config.attemptsTable),
    control: new OperatorControlState(dynamodb, config.controlTable, config.policy),
    controlItems: new OperatorControl(dynamodb, config.controlTable, config.policy.breakerCooldownSeconds),
    claims: new RefusingReplayClaims(new ReplayClaims(dynamodb, config.quarantineTable)),
    queue: new SourceQueue(sqs, config.sourceQueueUrl),
    kafka:
      config.kafka &&
      kafkaSource(config.kafka, target.kafkaBootstrap, {
        cluster: config.kafka.cluster,
        functionName,
        lambda: clients.lambda,
        clientOptions,
      }),
    operations: new Operations(sfn, config.stateMachines),
    backstop: () => {
      // Kafka moves no record aside: no backstop (docs/behaviour.md, "Kafka sources").
      backstop ??= config.kafka ? Promise.resolve(undefined) : BackstopQueue.find(sqs, config.sourceQueueUrl);
      return backstop;
    },
    content: new QuarantineWriter(s3, dynamodb, config.quarantineBucket, config.quarantineTable),
    whoAmI: () => {
      caller ??= callerArn(sts).then((Arn) => {
        if (!Arn) throw new Error('STS GetCallerIdentity returned no Arn: cannot record who acts');
        return Arn;
      });
      return caller;
    },
  };
}

/** What the consumer's mapping names as its source: the queue's ARN, or the MSK cluster's. */
export function mappingSource(config: ConsumerConfig): string {
  return config.kafka?.cluster ?? config.sourceQueueArn;
}

function kafkaSource(
  source: { cluster: string; topic: string },
  given: string | undefined,
  access: AwsKafkaAccessOptions,
): KafkaSource {
  let topics: KafkaTopics | undefined;
  return {
    ...source,
    topics: () => {
      if (topics) return topics;
      const cluster = kafkaCluster(source.cluster, given);
      if ('problem' in cluster) throw new UsageError(cluster.problem);
      topics = new KafkaTopics({
        cluster: source.cluster,
        connection: () => kafkaConnection(source.cluster, cluster, new AwsKafkaAccess(access)),
      });
      return topics;
    },
    close: async () => topics?.close(),
  };
}

async function consumerConfig(
  clients: AwsClients,
  functionName: string,
  profile: string | undefined,
): Promise<ConsumerConfig> {
  const variables = await firstCall(functionEnvironment(clients.lambda, functionName), profile);
  if (variables === undefined) {
    throw new NotFound(
      `no Lambda function ${functionName} in this account and region (check --function, --region and --profile)`,
    );
  }
  // The user's own variables live in the same environment; parseConfig checks only ours.
  const ours = Object.fromEntries(Object.entries(variables).filter(([name]) => name.startsWith('PQ_')));
  if (Object.keys(ours).length === 0) {
    throw new Refused(
      `${functionName} is not a poison-quarantine consumer (no PQ_* variables in its environment)`,
    );
  }
  try {
    return parseConfig(ours);
  } catch (error) {
    throw new Error(`${functionName}'s environment: ${(error as Error).message}`);
  }
}

/**
 * The first AWS call. When it fails, it is most often this machine's set-up (no region, no
 * credentials, a wrong endpoint or profile, a missing permission), which the SDK's own message
 * says best; the adapter keeps only the error's name. The request carries only the function's
 * name, so its message is safe to print, unlike those of calls that carry a task token.
 */
async function firstCall<T>(call: Promise<T>, profile: string | undefined): Promise<T> {
  try {
    return await call;
  } catch (error) {
    const { cause } = error as Error;
    if (!(cause instanceof Error)) throw error;
    if (cause.message === 'Region is missing') {
      throw new UsageError(
        profile === undefined
          ? 'no region: pass --region REGION, set AWS_REGION, or use a --profile that has one'
          : `no region: the profile ${profile} has none, or is not in your AWS config files: pass --region REGION`,
      );
    }
    throw new Error(`${(error as Error).message}: ${cause.message}`, { cause: error });
  }
}
