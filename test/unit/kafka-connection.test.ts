/**
 * The connection `pq replay` opens to a Kafka cluster (cli/kafka-connection.ts), with AWS played
 * by an in-memory stand-in at the port (ports/kafka-access.ts): the consumer's mapping, the
 * secret it names, an MSK cluster's brokers (kafka:GetBootstrapBrokers, which moto does not
 * implement) and MSK IAM tokens. What it asks, in which order, and each failure naming the cluster.
 */
import { describe, expect, it } from 'vitest';
import { kafkaCluster } from '../../cli/kafka-cluster';
import { kafkaConnection } from '../../cli/kafka-connection';
import { KafkaTopicError } from '../../lambdas/ports/errors';
import type { KafkaAccessPort, MskBrokerStrings, SourceAccess } from '../../lambdas/ports/kafka-access';

const ARN = 'arn:aws:kafka:eu-west-1:123456789012:cluster/orders/0b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e-2';
const SERVERS = 'kafka-1.internal:9096,kafka-2.internal:9096';
const SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:kafka/orders-AbCdEf';
const CREDENTIALS = JSON.stringify({ username: 'pq-orders', password: 's3cret' });
const MSK_BROKERS: MskBrokerStrings = {
  BootstrapBrokerStringTls: 'b-1.orders:9094',
  BootstrapBrokerStringSaslScram: 'b-1.orders:9096',
  BootstrapBrokerStringSaslIam: 'b-1.orders:9098,b-2.orders:9098',
};

/** AWS as the port sees it, each question recorded. */
function standIn(world: {
  readonly mapping?: readonly SourceAccess[];
  readonly secrets?: Readonly<Record<string, string>>;
  readonly brokers?: MskBrokerStrings;
}) {
  const asked: string[] = [];
  let tokens = 0;
  const port: KafkaAccessPort = {
    mappingAccess: async () => {
      asked.push('mapping');
      return world.mapping;
    },
    secretText: async (secretArn) => {
      asked.push(`secret ${secretArn}`);
      const text = world.secrets?.[secretArn];
      if (text === undefined) throw new KafkaTopicError(`no secret ${secretArn}`);
      return text;
    },
    mskBrokers: async (clusterArn) => {
      asked.push(`brokers ${clusterArn}`);
      return world.brokers ?? {};
    },
    mskIamToken: async (region) => {
      asked.push(`token ${region}`);
      tokens += 1;
      return `token-${region}-${tokens}`;
    },
  };
  return { port, asked };
}

async function connect(cluster: string, given: string | undefined, port: KafkaAccessPort) {
  const found = kafkaCluster(cluster, given);
  if ('problem' in found) throw new Error(found.problem);
  return kafkaConnection(cluster, found, port);
}

describe('kafkaConnection to a self-managed cluster', () => {
  it('given a SCRAM-SHA-512 mapping, then its secret read and SASL/SCRAM-SHA-512 over TLS to the bootstrap servers', async () => {
    // Prepare
    const { port, asked } = standIn({
      mapping: [{ type: 'SASL_SCRAM_512_AUTH', uri: SECRET }],
      secrets: { [SECRET]: CREDENTIALS },
    });

    // Act
    const connection = await connect(SERVERS, undefined, port);

    // Assess
    expect(connection).toStrictEqual({
      brokers: ['kafka-1.internal:9096', 'kafka-2.internal:9096'],
      tls: true,
      sasl: { mechanism: 'SCRAM-SHA-512', username: 'pq-orders', password: 's3cret' },
    });
    expect(asked).toStrictEqual(['mapping', `secret ${SECRET}`]);
  });

  it('given a mapping without a secret and --kafka-bootstrap, then those brokers, no TLS and no authentication', async () => {
    // Prepare
    const { port, asked } = standIn({ mapping: [] });

    // Act
    const connection = await connect(SERVERS, '10.0.0.5:9092', port);

    // Assess
    expect(connection).toStrictEqual({ brokers: ['10.0.0.5:9092'], tls: false });
    expect(asked).toStrictEqual(['mapping']);
  });

  it('given a secret that is not the JSON Lambda reads, then a failure naming the cluster and the secret', async () => {
    // Prepare
    const { port } = standIn({
      mapping: [{ type: 'BASIC_AUTH', uri: SECRET }],
      secrets: { [SECRET]: 's3cret' },
    });

    // Act
    const connecting = connect(SERVERS, undefined, port);

    // Assess
    await expect(connecting).rejects.toThrow(
      new KafkaTopicError(
        `Kafka cluster ${SERVERS}: the mapping's secret ${SECRET} holds no JSON {"username": "...", "password": "..."} as Lambda expects`,
      ),
    );
  });

  it('given no mapping of the consumer, then a failure that says pq cannot tell how to authenticate, nothing else asked', async () => {
    // Prepare
    const { port, asked } = standIn({});

    // Act
    const connecting = connect(SERVERS, undefined, port);

    // Assess
    await expect(connecting).rejects.toThrow(
      `Kafka cluster ${SERVERS}: Lambda lists no event source mapping of the consumer, so pq cannot tell how it authenticates to the cluster`,
    );
    expect(asked).toStrictEqual(['mapping']);
  });

  it('given an mTLS mapping, then the refusal names it, and no secret is read', async () => {
    // Prepare
    const { port, asked } = standIn({ mapping: [{ type: 'CLIENT_CERTIFICATE_TLS_AUTH', uri: SECRET }] });

    // Act
    const connecting = connect(SERVERS, undefined, port);

    // Assess
    await expect(connecting).rejects.toThrow(
      /^Kafka cluster \S+: .*\(CLIENT_CERTIFICATE_TLS_AUTH\), which pq does not support$/,
    );
    expect(asked).toStrictEqual(['mapping']);
  });
});

describe('kafkaConnection to an MSK cluster', () => {
  it("given a mapping without a secret, then IAM over TLS to the cluster's IAM listener, a token signed for its region at every authentication", async () => {
    // Prepare
    const { port, asked } = standIn({ mapping: [], brokers: MSK_BROKERS });

    // Act
    const connection = await connect(ARN, undefined, port);
    const sasl = connection.sasl;
    const tokens = sasl?.mechanism === 'OAUTHBEARER' ? [await sasl.token(), await sasl.token()] : [];

    // Assess
    expect(connection).toMatchObject({ brokers: ['b-1.orders:9098', 'b-2.orders:9098'], tls: true });
    expect(sasl?.mechanism).toBe('OAUTHBEARER');
    expect(tokens).toStrictEqual(['token-eu-west-1-2', 'token-eu-west-1-3']);
    expect(asked).toStrictEqual([
      'mapping',
      `brokers ${ARN}`,
      'token eu-west-1',
      'token eu-west-1',
      'token eu-west-1',
    ]);
  });

  it('given a SCRAM mapping, then its secret and the SCRAM listener over TLS', async () => {
    // Prepare
    const { port } = standIn({
      mapping: [{ type: 'SASL_SCRAM_512_AUTH', uri: SECRET }],
      secrets: { [SECRET]: CREDENTIALS },
      brokers: MSK_BROKERS,
    });

    // Act
    const connection = await connect(ARN, undefined, port);

    // Assess
    expect(connection).toStrictEqual({
      brokers: ['b-1.orders:9096'],
      tls: true,
      sasl: { mechanism: 'SCRAM-SHA-512', username: 'pq-orders', password: 's3cret' },
    });
  });

  it('given a SCRAM mapping and --kafka-bootstrap, then those brokers and no lookup: the secret alone says how', async () => {
    // Prepare
    const { port, asked } = standIn({
      mapping: [{ type: 'SASL_SCRAM_512_AUTH', uri: SECRET }],
      secrets: { [SECRET]: CREDENTIALS },
    });

    // Act
    const connection = await connect(ARN, '127.0.0.1:9096', port);

    // Assess
    expect(connection).toMatchObject({ brokers: ['127.0.0.1:9096'], tls: true });
    expect(asked).toStrictEqual(['mapping', `secret ${SECRET}`]);
  });

  it("given no secret and --kafka-bootstrap, then the cluster's listeners still decide how: TLS without authentication here", async () => {
    // Prepare
    const { port, asked } = standIn({
      mapping: [],
      brokers: { BootstrapBrokerStringTls: 'b-1.orders:9094' },
    });

    // Act
    const connection = await connect(ARN, 'tunnel.local:9094', port);

    // Assess
    expect(connection).toStrictEqual({ brokers: ['tunnel.local:9094'], tls: true });
    expect(asked).toStrictEqual(['mapping', `brokers ${ARN}`]);
  });

  it("given a cluster without the mapping's listener, then a failure naming the cluster and what GetBootstrapBrokers lacked", async () => {
    // Prepare
    const { port } = standIn({
      mapping: [{ type: 'SASL_SCRAM_512_AUTH', uri: SECRET }],
      brokers: { BootstrapBrokerStringSaslIam: 'b-1.orders:9098' },
    });

    // Act
    const connecting = connect(ARN, undefined, port);

    // Assess
    await expect(connecting).rejects.toThrow(
      `Kafka cluster ${ARN}: kafka:GetBootstrapBrokers answered no BootstrapBrokerStringSaslScram`,
    );
  });
});
