/**
 * The connection a replay opens, found the way the consumer's event source mapping connects
 * (cli/kafka-access.ts decides): the mapping's access configurations first, then the brokers (the
 * given ones, the self-managed cluster's, or kafka:GetBootstrapBrokers' listener for the mapping's
 * authentication), then the credentials (the mapping's secret, or an MSK IAM token). Asked before
 * any record is read or changed; every failure is a KafkaTopicError naming the cluster.
 */
import { KafkaTopicError } from '../lambdas/ports/errors';
import type { KafkaAccessPort, KafkaConnection, KafkaSasl } from '../lambdas/ports/kafka-access';
import {
  type KafkaAccess,
  type KafkaAuthentication,
  type MappingCredentials,
  mappingCredentials,
  mskRoute,
  mskRoutes,
  saslCredentials,
  selfManagedAccess,
} from './kafka-access';
import type { KafkaCluster } from './kafka-cluster';

/** `name`: the cluster as the consumer names it (PQ_KAFKA_CLUSTER), which every failure names. */
export async function kafkaConnection(
  name: string,
  cluster: KafkaCluster,
  port: KafkaAccessPort,
): Promise<KafkaConnection> {
  const refused = (problem: string) => new KafkaTopicError(`Kafka cluster ${name}: ${problem}`);
  const credentials = await mappingCredentialsOf(port, refused);
  const { access, brokers } =
    cluster.kind === 'msk'
      ? await mskAccess(cluster, credentials, port, refused)
      : { access: selfManagedAccess(credentials), brokers: cluster.brokers };
  const sasl = await saslOf(access.authentication, port, refused);
  return { brokers, tls: access.tls, ...(sasl === undefined ? {} : { sasl }) };
}

type Refusal = (problem: string) => KafkaTopicError;

async function mappingCredentialsOf(port: KafkaAccessPort, refused: Refusal): Promise<MappingCredentials> {
  const access = await port.mappingAccess();
  if (access === undefined) {
    throw refused(
      'Lambda lists no event source mapping of the consumer, so pq cannot tell how it authenticates to the cluster',
    );
  }
  const credentials = mappingCredentials(access);
  if ('problem' in credentials) throw refused(credentials.problem);
  return credentials;
}

async function mskAccess(
  cluster: Extract<KafkaCluster, { kind: 'msk' }>,
  credentials: MappingCredentials,
  port: KafkaAccessPort,
  refused: Refusal,
): Promise<{ readonly access: KafkaAccess; readonly brokers: readonly string[] }> {
  const routes = mskRoutes(credentials, cluster.region);
  // A secret leaves one way in: given brokers need no lookup then. Without one, the cluster's
  // listeners decide how Lambda authenticates (IAM, TLS or none), so they are asked even then.
  const [only] = routes;
  if (cluster.given !== undefined && routes.length === 1 && only !== undefined) {
    return { access: only.access, brokers: cluster.given };
  }
  const found = mskRoute(routes, await port.mskBrokers(cluster.arn));
  if ('problem' in found) throw refused(found.problem);
  return { access: found.access, brokers: cluster.given ?? found.brokers };
}

async function saslOf(
  authentication: KafkaAuthentication,
  port: KafkaAccessPort,
  refused: Refusal,
): Promise<KafkaSasl | undefined> {
  switch (authentication.kind) {
    case 'none':
      return undefined;
    case 'sasl': {
      const credentials = saslCredentials(await port.secretText(authentication.secretArn));
      if ('problem' in credentials) {
        throw refused(`the mapping's secret ${authentication.secretArn} ${credentials.problem}`);
      }
      return { mechanism: authentication.mechanism, ...credentials };
    }
    case 'msk-iam': {
      // Signed once now, so that missing credentials fail here in the signer's words, not later
      // as a connection the brokers closed.
      await port.mskIamToken(authentication.region);
      return { mechanism: 'OAUTHBEARER', token: () => port.mskIamToken(authentication.region) };
    }
  }
}
