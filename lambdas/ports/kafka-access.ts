/**
 * How an operator's replay reaches a Kafka cluster the way the consumer's event source mapping
 * does: what it asks AWS (the mapping's access configurations, the secret they name, an MSK
 * cluster's brokers, an MSK IAM token) and what comes of it, the connection the Kafka client
 * opens (adapters/kafka-topic.ts). adapters/kafka-access.ts asks AWS; tests may pass their own.
 * Every failure is a KafkaTopicError (ports/errors.ts) naming the cluster.
 */

/** One of the mapping's SourceAccessConfigurations, as Lambda lists it (SASL_SCRAM_512_AUTH, VPC_SUBNET...). */
export interface SourceAccess {
  readonly type: string;
  /** A secret's ARN, a subnet's or security group's id. */
  readonly uri: string;
}

/**
 * What kafka:GetBootstrapBrokers answers, by listener (its field names): each `host:port,...`,
 * absent where the cluster has no such listener.
 */
export interface MskBrokerStrings {
  readonly BootstrapBrokerString?: string;
  readonly BootstrapBrokerStringTls?: string;
  readonly BootstrapBrokerStringSaslScram?: string;
  readonly BootstrapBrokerStringSaslIam?: string;
}

export type MskListener = keyof MskBrokerStrings;

export interface KafkaAccessPort {
  /** The access configurations of the consumer's Kafka mapping; undefined when Lambda lists none for it. */
  mappingAccess(): Promise<readonly SourceAccess[] | undefined>;
  /** The secret's text (SecretString), as Lambda reads it. */
  secretText(secretArn: string): Promise<string>;
  /** The MSK cluster's bootstrap brokers, by listener. */
  mskBrokers(clusterArn: string): Promise<MskBrokerStrings>;
  /** An MSK IAM authentication token, signed for `region` with the operator's credentials. */
  mskIamToken(region: string): Promise<string>;
}

/** The SASL mechanisms a mapping's secret stands for. */
export type SaslMechanism = 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512';

export type KafkaSasl =
  | { readonly mechanism: SaslMechanism; readonly username: string; readonly password: string }
  /** MSK IAM: a fresh token for every authentication (a token lives 15 minutes). */
  | { readonly mechanism: 'OAUTHBEARER'; readonly token: () => Promise<string> };

/** Where and how the Kafka client connects. */
export interface KafkaConnection {
  /** `host:port` of one or more brokers. */
  readonly brokers: readonly string[];
  /** TLS to every broker, trusting Node.js's CAs (NODE_EXTRA_CA_CERTS adds others). */
  readonly tls: boolean;
  /** Absent: no authentication. */
  readonly sasl?: KafkaSasl;
}
