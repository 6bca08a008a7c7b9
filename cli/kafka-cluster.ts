/**
 * Where `pq` finds a Kafka consumer's brokers, to produce a replay: `--kafka-bootstrap` (or
 * PQ_KAFKA_BOOTSTRAP) when given, else the consumer's PQ_KAFKA_CLUSTER when it holds bootstrap
 * servers (a self-managed cluster). An MSK cluster is named by its ARN there: its brokers would
 * come from kafka:GetBootstrapBrokers and its listeners want TLS and IAM or SCRAM authentication,
 * none of which pq speaks, so it asks for a listener it can reach instead of guessing.
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

export type KafkaBrokers = { readonly brokers: readonly string[] } | { readonly problem: string };

/** The brokers a replay connects to, or why pq cannot tell (what to pass instead). */
export function kafkaBrokers(cluster: string, given: string | undefined): KafkaBrokers {
  const fromOption = given === undefined ? undefined : parseBootstrap(given);
  if (fromOption !== undefined) return { brokers: fromOption };
  const pass = `pass --${KAFKA_BOOTSTRAP_OPTION} HOST:PORT[,HOST:PORT...] (or set ${KAFKA_BOOTSTRAP_VARIABLE}): brokers of a listener pq can reach without authentication`;
  if (/^arn:aws[\w-]*:kafka:/.test(cluster)) {
    return {
      problem:
        `the consumer reads the Amazon MSK cluster ${cluster}, and pq cannot look its brokers up or ` +
        `authenticate with IAM: ${pass} (aws kafka get-bootstrap-brokers --cluster-arn ARN lists them)`,
    };
  }
  const fromCluster = parseBootstrap(cluster);
  if (fromCluster !== undefined) return { brokers: fromCluster };
  return {
    problem: `the consumer's Kafka cluster ${JSON.stringify(cluster)} is not bootstrap servers: ${pass}`,
  };
}
