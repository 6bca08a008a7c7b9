/**
 * How the Kafka client connects for `pq replay` (lambdas/adapters/kafka-topic.ts): the TLS and
 * SASL options built from each kind of connection (ports/kafka-access.ts), and the client's
 * failures described down to their causes (a refused authentication, an untrusted certificate).
 */
import { describe, expect, it } from 'vitest';
import { describeKafkaError, securityOptions } from '../../lambdas/adapters/kafka-topic';

describe('securityOptions', () => {
  it('given no TLS and no SASL, then neither', () => {
    expect(securityOptions({ brokers: ['127.0.0.1:9092'], tls: false })).toStrictEqual({});
  });

  it.each([['SCRAM-SHA-512'], ['SCRAM-SHA-256'], ['PLAIN']] as const)(
    'given SASL/%s over TLS, then its user name and password, and TLS with the default CAs',
    (mechanism) => {
      expect(
        securityOptions({
          brokers: ['kafka-1.internal:9096', 'kafka-2.internal:9096'],
          tls: true,
          sasl: { mechanism, username: 'pq-orders', password: 's3cret' },
        }),
      ).toStrictEqual({
        tls: {},
        tlsServerName: true,
        sasl: { mechanism, username: 'pq-orders', password: 's3cret' },
      });
    },
  );

  it('given MSK IAM, then SASL/OAUTHBEARER asking the token provider at every authentication', async () => {
    // Prepare
    let signed = 0;
    const token = async () => `token-${++signed}`;

    // Act
    const options = securityOptions({
      brokers: ['b-1.orders:9098'],
      tls: true,
      sasl: { mechanism: 'OAUTHBEARER', token },
    });

    // Assess
    expect(options).toStrictEqual({
      tls: {},
      tlsServerName: true,
      sasl: { mechanism: 'OAUTHBEARER', token },
    });
  });

  it('given brokers named by IP address, then no server name: Node.js refuses an IP address as one', () => {
    expect(securityOptions({ brokers: ['127.0.0.1:9096', '[::1]:9096'], tls: true })).toStrictEqual({
      tls: {},
      tlsServerName: false,
    });
    expect(securityOptions({ brokers: ['kafka-1.internal:9096', '10.0.0.5:9096'], tls: true })).toMatchObject(
      {
        tlsServerName: false,
      },
    );
  });
});

describe('describeKafkaError', () => {
  it("given a connection the brokers refused, then what caused it: the client's, then the broker's words", () => {
    // Prepare: as the client nests them (retries, brokers, the connection, the SASL exchange).
    const refused = Object.assign(new Error('SASL authentication failed.'), {
      apiId: 'SASL_AUTHENTICATION_FAILED',
      serverErrorMessage:
        'Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512',
    });
    const authentication = new Error('SASL authentication failed.', {
      cause: new AggregateError(
        [refused],
        'Received response with error while executing API SaslAuthenticate(v2)',
      ),
    });
    const connection = new Error('Connection to 127.0.0.1:9096 failed.', { cause: authentication });
    const attempt = () => new AggregateError([connection], 'Cannot connect to any broker.');

    // Act
    const described = describeKafkaError(
      new AggregateError([attempt(), attempt()], 'metadata failed 2 times.'),
    );

    // Assess
    expect(described).toBe(
      'metadata failed 2 times: Connection to 127.0.0.1:9096 failed: SASL authentication failed: SASL_AUTHENTICATION_FAILED (Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512)',
    );
  });

  it('given a TLS error, then its own message', () => {
    const untrusted = Object.assign(new Error('self-signed certificate'), {
      code: 'DEPTH_ZERO_SELF_SIGNED_CERT',
    });

    expect(describeKafkaError(new Error('Connection to b-1:9094 failed.', { cause: untrusted }))).toBe(
      'Connection to b-1:9094 failed: self-signed certificate',
    );
  });
});
