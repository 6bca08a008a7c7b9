/**
 * What a replay asks AWS to reach a Kafka cluster as the consumer's event source mapping does
 * (ports/kafka-access.ts): Lambda for the mapping, Secrets Manager for the secret it names, Kafka
 * for an MSK cluster's brokers, and AWS's MSK IAM signer (aws-msk-iam-sasl-signer-js) for a token,
 * each with the operator's credentials (pq's profile, through the Lambda client's). The Secrets
 * Manager and Kafka clients and the signer load on first use: only a Kafka replay needs them.
 * Every failure leaves as a KafkaTopicError naming the cluster and the call.
 */
import {
  type EventSourceMappingConfiguration,
  type LambdaClient,
  ListEventSourceMappingsCommand,
} from '@aws-sdk/client-lambda';
import { KafkaTopicError } from '../ports/errors';
import type { KafkaAccessPort, MskBrokerStrings, SourceAccess } from '../ports/kafka-access';
import { type ClientOptions, clientConfig } from './client-config';
import { describeSdkError } from './sdk-errors';

/** The operator's credentials, as an SDK client resolves them. */
export type CredentialProvider = LambdaClient['config']['credentials'];

export interface AwsKafkaAccessOptions {
  /** The cluster as the consumer names it (PQ_KAFKA_CLUSTER): its mapping's source, and what failures name. */
  readonly cluster: string;
  readonly functionName: string;
  readonly lambda: LambdaClient;
  /** pq's endpoint and profile; the region is the secret's or the cluster's own. */
  readonly clientOptions: ClientOptions;
}

export class AwsKafkaAccess implements KafkaAccessPort {
  constructor(private readonly options: AwsKafkaAccessOptions) {}

  async mappingAccess(): Promise<readonly SourceAccess[] | undefined> {
    const { functionName, lambda, cluster } = this.options;
    const { EventSourceMappings = [] } = await this.asked(
      `lambda:ListEventSourceMappings of ${functionName}`,
      () => lambda.send(new ListEventSourceMappingsCommand({ FunctionName: functionName })),
    );
    const mapping = kafkaMapping(EventSourceMappings, cluster);
    if (mapping === undefined) return undefined;
    return (mapping.SourceAccessConfigurations ?? []).map(({ Type, URI }) => ({
      type: Type ?? '',
      uri: URI ?? '',
    }));
  }

  async secretText(secretArn: string): Promise<string> {
    const { SecretString } = await this.asked(`secretsmanager:GetSecretValue of ${secretArn}`, async () => {
      const { GetSecretValueCommand, SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
      const client = new SecretsManagerClient(this.config(secretArn));
      return client.send(new GetSecretValueCommand({ SecretId: secretArn }));
    });
    if (SecretString === undefined) {
      throw new KafkaTopicError(
        `Kafka cluster ${this.options.cluster}: the mapping's secret ${secretArn} holds no text (a binary secret), not the user name and password Lambda expects`,
      );
    }
    return SecretString;
  }

  async mskBrokers(clusterArn: string): Promise<MskBrokerStrings> {
    return this.asked('kafka:GetBootstrapBrokers', async () => {
      const { GetBootstrapBrokersCommand, KafkaClient } = await import('@aws-sdk/client-kafka');
      const client = new KafkaClient(this.config(clusterArn));
      return client.send(new GetBootstrapBrokersCommand({ ClusterArn: clusterArn }));
    });
  }

  async mskIamToken(region: string): Promise<string> {
    try {
      return await mskIamToken(region, this.options.lambda.config.credentials);
    } catch (error) {
      // The signer's and the credential providers' words name no secret: they say what is missing.
      const { name, message } = error instanceof Error ? error : new Error(String(error));
      throw new KafkaTopicError(
        `Kafka cluster ${this.options.cluster}: signing an MSK IAM authentication token failed: ${name}: ${message}`,
        { cause: error },
      );
    }
  }

  /** pq's client settings in the region of `arn` (a secret's, a cluster's). */
  private config(arn: string): ClientOptions {
    const region = arn.split(':')[3];
    return clientConfig({ ...this.options.clientOptions, ...(region ? { region } : {}) });
  }

  private async asked<T>(call: string, ask: () => Promise<T>): Promise<T> {
    try {
      return await ask();
    } catch (error) {
      throw new KafkaTopicError(
        `Kafka cluster ${this.options.cluster}: ${call} failed: ${describeSdkError(error)}`,
        { cause: error },
      );
    }
  }
}

/**
 * An MSK IAM authentication token (SASL/OAUTHBEARER): AWS's signer presigns kafka-cluster:Connect
 * at kafka.<region>.amazonaws.com with `credentials`, base64url-encoded; it lives 15 minutes.
 */
export async function mskIamToken(region: string, credentials: CredentialProvider): Promise<string> {
  const { generateAuthTokenFromCredentialsProvider } = await import('aws-msk-iam-sasl-signer-js');
  const { token } = await generateAuthTokenFromCredentialsProvider({
    region,
    awsCredentialsProvider: credentials,
  });
  return token;
}

/**
 * The function's mapping of the cluster: the MSK cluster's (its ARN), or the self-managed one's
 * (its bootstrap servers, joined as PQ_KAFKA_CLUSTER joins them); else the function's only one.
 */
function kafkaMapping(
  mappings: readonly EventSourceMappingConfiguration[],
  cluster: string,
): EventSourceMappingConfiguration | undefined {
  const servers = (mapping: EventSourceMappingConfiguration) =>
    mapping.SelfManagedEventSource?.Endpoints?.KAFKA_BOOTSTRAP_SERVERS?.join(',');
  return (
    mappings.find((mapping) => mapping.EventSourceArn === cluster || servers(mapping) === cluster) ??
    (mappings.length === 1 ? mappings[0] : undefined)
  );
}
