/**
 * Where `pq` finds a Kafka consumer's brokers, to produce a replay: `--kafka-bootstrap` (or
 * PQ_KAFKA_BOOTSTRAP) when given, else the consumer's PQ_KAFKA_CLUSTER: a self-managed cluster's
 * bootstrap servers, or an MSK cluster's ARN, whose brokers kafka:GetBootstrapBrokers lists (the
 * listener of the mapping's authentication, cli/kafka-access.ts). The given brokers replace the
 * addresses only: a replay authenticates as the mapping does whichever brokers it reaches.
 */
import { UsageError } from './errors';

/** The global option, and its environment variable. */
export const KAFKA_BOOTSTRAP_OPTION = 'kafka-bootstrap';
export const KAFKA_BOOTSTRAP_VARIABLE = 'PQ_KAFKA_BOOTSTRAP';

/** `host:port`, a host name or IPv4 address, or an IPv6 address in brackets. */
const BROKER = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):(\d{1,5})$/;

/** `host:port[,host:port...]` as a list; undefined when any part is not one. */
export function parseBootstrap(text: string): string[] | undefined {
  const brokers = text.split(',').map((part) => part.trim());
  const valid = brokers.every((broker) => {
    const port = Number(BROKER.exec(broker)?.[2]);
    return port >= 1 && port <= 65_535;
  });
  return valid && brokers.length > 0 ? brokers : undefined;
}

/** A given `--kafka-bootstrap`, checked before anything runs (a usage mistake, exit 252). */
export function bootstrapOption(given: string | undefined): string | undefined {
  if (given === undefined) return undefined;
  if (parseBootstrap(given) === undefined) {
    throw new UsageError(
      `--${KAFKA_BOOTSTRAP_OPTION} takes HOST:PORT[,HOST:PORT...], the brokers' addresses (given ${given})`,
    );
  }
  return given;
}

/** The consumer's cluster as a replay reaches it. */
export type KafkaCluster =
  /** An MSK cluster: its brokers from kafka:GetBootstrapBrokers, unless `given`. */
  | {
      readonly kind: 'msk';
      readonly arn: string;
      readonly region: string;
      readonly given?: readonly string[];
    }
  /** A self-managed cluster: its bootstrap servers, or those given. */
  | { readonly kind: 'self-managed'; readonly brokers: readonly string[] };

const MSK_CLUSTER_ARN = /^arn:aws[\w-]*:kafka:([a-z0-9-]+):/;

/** The consumer's PQ_KAFKA_CLUSTER and a given `--kafka-bootstrap`, or why pq cannot tell where the brokers are. */
export function kafkaCluster(
  cluster: string,
  given: string | undefined,
): KafkaCluster | { readonly problem: string } {
  const fromOption = given === undefined ? undefined : parseBootstrap(given);
  const region = MSK_CLUSTER_ARN.exec(cluster)?.[1];
  if (region !== undefined) {
    return { kind: 'msk', arn: cluster, region, ...(fromOption === undefined ? {} : { given: fromOption }) };
  }
  const brokers = fromOption ?? parseBootstrap(cluster);
  if (brokers !== undefined) return { kind: 'self-managed', brokers };
  return {
    problem: `the consumer's Kafka cluster ${JSON.stringify(cluster)} is neither an MSK cluster ARN nor bootstrap servers: pass --${KAFKA_BOOTSTRAP_OPTION} HOST:PORT[,HOST:PORT...] (or set ${KAFKA_BOOTSTRAP_VARIABLE})`,
  };
}
