/**
 * How `pq replay` reaches a Kafka cluster, the pure decisions (cli/kafka-access.ts,
 * cli/kafka-cluster.ts): where the brokers are, and how the consumer's event source mapping
 * authenticates, read from its SourceAccessConfigurations as Lambda reads them: every kind Lambda
 * lists, what pq refuses, MSK's listeners in Lambda's order, and a SASL secret's JSON.
 */
import { describe, expect, it } from 'vitest';
import {
  mappingCredentials,
  mskRoute,
  mskRoutes,
  saslCredentials,
  selfManagedAccess,
} from '../../cli/kafka-access';
import { kafkaCluster } from '../../cli/kafka-cluster';

const ARN = 'arn:aws:kafka:eu-west-1:123456789012:cluster/orders/0b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e-2';
const SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:kafka/orders-AbCdEf';
const NETWORK = [
  { type: 'VPC_SUBNET', uri: 'subnet:subnet-0a0a0a0a0a0a0a0a0' },
  { type: 'VPC_SECURITY_GROUP', uri: 'security_group:sg-0c0c0c0c0c0c0c0c0' },
];

describe('kafkaCluster', () => {
  it('given bootstrap servers in PQ_KAFKA_CLUSTER, then a self-managed cluster at those', () => {
    expect(kafkaCluster('b-1.local:9092, b-2.local:9092', undefined)).toStrictEqual({
      kind: 'self-managed',
      brokers: ['b-1.local:9092', 'b-2.local:9092'],
    });
  });

  it('given an MSK cluster ARN, then an MSK cluster in its region, its brokers to look up', () => {
    expect(kafkaCluster(ARN, undefined)).toStrictEqual({ kind: 'msk', arn: ARN, region: 'eu-west-1' });
  });

  it('given --kafka-bootstrap, then those brokers, for either kind of cluster', () => {
    expect(kafkaCluster(ARN, '10.0.0.5:9098')).toStrictEqual({
      kind: 'msk',
      arn: ARN,
      region: 'eu-west-1',
      given: ['10.0.0.5:9098'],
    });
    expect(kafkaCluster('b-1.local:9092', '[::1]:9092')).toStrictEqual({
      kind: 'self-managed',
      brokers: ['[::1]:9092'],
    });
  });

  it('given a cluster that is neither, then it says what to pass, never guesses', () => {
    expect(kafkaCluster('orders cluster', undefined)).toStrictEqual({
      problem:
        'the consumer\'s Kafka cluster "orders cluster" is neither an MSK cluster ARN nor bootstrap servers: pass --kafka-bootstrap HOST:PORT[,HOST:PORT...] (or set PQ_KAFKA_BOOTSTRAP)',
    });
  });
});

describe('mappingCredentials', () => {
  it.each([
    ['SASL_SCRAM_512_AUTH', 'SCRAM-SHA-512'],
    ['SASL_SCRAM_256_AUTH', 'SCRAM-SHA-256'],
    ['BASIC_AUTH', 'PLAIN'],
  ])('given %s with a secret, then SASL/%s with that secret', (type, mechanism) => {
    expect(mappingCredentials([{ type, uri: SECRET }, ...NETWORK])).toStrictEqual({
      sasl: { mechanism, secretArn: SECRET },
      privateCa: false,
    });
  });

  it('given no access configurations, or only the VPC ones, then no secret', () => {
    expect(mappingCredentials([])).toStrictEqual({ privateCa: false });
    expect(mappingCredentials(NETWORK)).toStrictEqual({ privateCa: false });
  });

  it("given SERVER_ROOT_CA_CERTIFICATE, then the brokers' certificate is of a private CA", () => {
    expect(
      mappingCredentials([
        { type: 'SERVER_ROOT_CA_CERTIFICATE', uri: `${SECRET}-ca` },
        { type: 'SASL_SCRAM_512_AUTH', uri: SECRET },
      ]),
    ).toStrictEqual({ sasl: { mechanism: 'SCRAM-SHA-512', secretArn: SECRET }, privateCa: true });
  });

  it('given a client certificate (mTLS), then it says pq does not support it', () => {
    expect(
      mappingCredentials([{ type: 'CLIENT_CERTIFICATE_TLS_AUTH', uri: SECRET }, ...NETWORK]),
    ).toStrictEqual({
      problem:
        "the consumer's event source mapping authenticates with mutual TLS with a client certificate (CLIENT_CERTIFICATE_TLS_AUTH), which pq does not support",
    });
  });

  it('given kinds pq does not know, then it names them and refuses', () => {
    expect(
      mappingCredentials([
        { type: 'OAUTHBEARER_AUTH', uri: SECRET },
        { type: 'VIRTUAL_HOST', uri: '/' },
        { type: 'OAUTHBEARER_AUTH', uri: SECRET },
      ]),
    ).toStrictEqual({
      problem:
        "the consumer's event source mapping names OAUTHBEARER_AUTH, VIRTUAL_HOST, an access configuration pq does not know",
    });
  });

  it('given two secrets, then it refuses to pick one', () => {
    expect(
      mappingCredentials([
        { type: 'SASL_SCRAM_512_AUTH', uri: SECRET },
        { type: 'BASIC_AUTH', uri: `${SECRET}-plain` },
      ]),
    ).toStrictEqual({
      problem:
        "the consumer's event source mapping names 2 secrets (SASL_SCRAM_512_AUTH, BASIC_AUTH): pq cannot tell which one Lambda uses",
    });
  });
});

describe('selfManagedAccess', () => {
  it('given a secret, then its SASL over TLS: Lambda never sends credentials in the clear', () => {
    expect(
      selfManagedAccess({ sasl: { mechanism: 'PLAIN', secretArn: SECRET }, privateCa: false }),
    ).toStrictEqual({
      authentication: { kind: 'sasl', mechanism: 'PLAIN', secretArn: SECRET },
      tls: true,
    });
  });

  it('given no secret, then no authentication, over TLS only with a private CA', () => {
    expect(selfManagedAccess({ privateCa: false })).toStrictEqual({
      authentication: { kind: 'none' },
      tls: false,
    });
    expect(selfManagedAccess({ privateCa: true })).toStrictEqual({
      authentication: { kind: 'none' },
      tls: true,
    });
  });
});

describe('mskRoutes and mskRoute: the listener Lambda uses', () => {
  const all = {
    BootstrapBrokerString: 'b-1.orders:9092',
    BootstrapBrokerStringTls: 'b-1.orders:9094',
    BootstrapBrokerStringSaslScram: 'b-1.orders:9096,b-2.orders:9096',
    BootstrapBrokerStringSaslIam: 'b-1.orders:9098,b-2.orders:9098',
  };

  it("given a secret, then SASL/SCRAM over TLS at the cluster's SCRAM listener", () => {
    const routes = mskRoutes(
      { sasl: { mechanism: 'SCRAM-SHA-512', secretArn: SECRET }, privateCa: false },
      'eu-west-1',
    );

    expect(mskRoute(routes, all)).toStrictEqual({
      access: { authentication: { kind: 'sasl', mechanism: 'SCRAM-SHA-512', secretArn: SECRET }, tls: true },
      brokers: ['b-1.orders:9096', 'b-2.orders:9096'],
    });
  });

  it('given no secret, then IAM over TLS where the cluster has IAM, signed for its region', () => {
    const routes = mskRoutes({ privateCa: false }, 'eu-west-1');

    expect(mskRoute(routes, all)).toStrictEqual({
      access: { authentication: { kind: 'msk-iam', region: 'eu-west-1' }, tls: true },
      brokers: ['b-1.orders:9098', 'b-2.orders:9098'],
    });
  });

  it('given no secret and no IAM listener, then TLS unauthenticated, else plaintext', () => {
    const routes = mskRoutes({ privateCa: false }, 'eu-west-1');
    const { BootstrapBrokerStringSaslIam: _iam, ...withoutIam } = all;
    const { BootstrapBrokerStringTls: _tls, ...plaintextOnly } = withoutIam;

    expect(mskRoute(routes, { ...withoutIam, BootstrapBrokerStringSaslIam: '' })).toStrictEqual({
      access: { authentication: { kind: 'none' }, tls: true },
      brokers: ['b-1.orders:9094'],
    });
    expect(mskRoute(routes, plaintextOnly)).toStrictEqual({
      access: { authentication: { kind: 'none' }, tls: false },
      brokers: ['b-1.orders:9092'],
    });
  });

  it("given a cluster without the mapping's listener, or one that answers no brokers, then it says so", () => {
    const scram = mskRoutes(
      { sasl: { mechanism: 'SCRAM-SHA-512', secretArn: SECRET }, privateCa: false },
      'eu-west-1',
    );

    expect(mskRoute(scram, { BootstrapBrokerStringSaslIam: all.BootstrapBrokerStringSaslIam })).toStrictEqual(
      {
        problem:
          "kafka:GetBootstrapBrokers answered no BootstrapBrokerStringSaslScram: the cluster has no listener for the way the consumer's mapping authenticates",
      },
    );
    expect(mskRoute(scram, { BootstrapBrokerStringSaslScram: 'b-1.orders' })).toStrictEqual({
      problem:
        'kafka:GetBootstrapBrokers answered BootstrapBrokerStringSaslScram "b-1.orders", not HOST:PORT[,HOST:PORT...]',
    });
  });
});

describe('saslCredentials', () => {
  it('given the JSON Lambda reads, then its user name and password', () => {
    expect(saslCredentials('{"username": "pq", "password": "s3cret", "note": "rotated"}')).toStrictEqual({
      username: 'pq',
      password: 's3cret',
    });
  });

  it('given anything else, then a problem that never quotes the secret', () => {
    const problem = { problem: 'holds no JSON {"username": "...", "password": "..."} as Lambda expects' };

    expect(
      [
        's3cret',
        '{"user": "pq", "password": "s3cret"}',
        '{"username": "pq", "password": ""}',
        '["pq"]',
        'null',
      ].map(saslCredentials),
    ).toStrictEqual([problem, problem, problem, problem, problem]);
  });
});
