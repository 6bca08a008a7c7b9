/**
 * How a replay reaches a Kafka cluster, decided as Lambda decides it for the consumer's event
 * source mapping (AWS Lambda Developer Guide: "Configuring cluster authentication methods in
 * Lambda", and for MSK "How Lambda chooses a bootstrap broker"). The mapping's
 * SourceAccessConfigurations name a secret and what it holds: SASL/SCRAM or SASL/PLAIN, always
 * over TLS (Lambda never sends credentials in the clear). Without one, a self-managed cluster is
 * reached unauthenticated (over TLS when the mapping trusts a private CA), an MSK cluster through
 * the strongest listener it has: IAM, then TLS, then plaintext. Pure: cli/kafka-connection.ts asks
 * AWS for the mapping, the secret and the brokers.
 */
import type {
  MskBrokerStrings,
  MskListener,
  SaslMechanism,
  SourceAccess,
} from '../lambdas/ports/kafka-access';
import { parseBootstrap } from './kafka-cluster';

export type KafkaAuthentication =
  | { readonly kind: 'none' }
  | { readonly kind: 'sasl'; readonly mechanism: SaslMechanism; readonly secretArn: string }
  /** MSK IAM: SASL/OAUTHBEARER with a token signed for the cluster's region. */
  | { readonly kind: 'msk-iam'; readonly region: string };

export interface KafkaAccess {
  readonly authentication: KafkaAuthentication;
  readonly tls: boolean;
}

/** What the mapping's access configurations say of authentication. */
export interface MappingCredentials {
  /** The secret Lambda authenticates with, and the SASL mechanism it stands for. */
  readonly sasl?: { readonly mechanism: SaslMechanism; readonly secretArn: string };
  /** SERVER_ROOT_CA_CERTIFICATE: the brokers' certificate is of a private CA, so they speak TLS. */
  readonly privateCa: boolean;
}

/** One listener of an MSK cluster, and how a replay reaches the cluster through it. */
export interface MskRoute {
  readonly listener: MskListener;
  readonly access: KafkaAccess;
}

export type Problem = { readonly problem: string };

const SASL_BY_TYPE: ReadonlyMap<string, SaslMechanism> = new Map([
  ['SASL_SCRAM_512_AUTH', 'SCRAM-SHA-512'],
  ['SASL_SCRAM_256_AUTH', 'SCRAM-SHA-256'],
  ['BASIC_AUTH', 'PLAIN'],
]);
const PRIVATE_CA = 'SERVER_ROOT_CA_CERTIFICATE';
/** Where Lambda's pollers run, not how they authenticate: nothing to a replay. */
const NETWORK: ReadonlySet<string> = new Set(['VPC_SUBNET', 'VPC_SECURITY_GROUP']);
/** What pq knows of and does not do. */
const UNSUPPORTED: ReadonlyMap<string, string> = new Map([
  ['CLIENT_CERTIFICATE_TLS_AUTH', 'mutual TLS with a client certificate'],
]);
const NO_AUTHENTICATION: KafkaAuthentication = { kind: 'none' };

/** The mapping's secret and CA, or why pq cannot authenticate as it does. */
export function mappingCredentials(access: readonly SourceAccess[]): MappingCredentials | Problem {
  const types = [...new Set(access.map(({ type }) => type))];
  const unsupported = types.find((type) => UNSUPPORTED.has(type));
  if (unsupported !== undefined) {
    return {
      problem: `the consumer's event source mapping authenticates with ${UNSUPPORTED.get(unsupported)} (${unsupported}), which pq does not support`,
    };
  }
  const unknown = types.filter(
    (type) => !SASL_BY_TYPE.has(type) && !NETWORK.has(type) && type !== PRIVATE_CA,
  );
  if (unknown.length > 0) {
    return {
      problem: `the consumer's event source mapping names ${unknown.join(', ')}, an access configuration pq does not know`,
    };
  }
  const secrets = access.filter(({ type }) => SASL_BY_TYPE.has(type));
  const [secret] = secrets;
  if (secrets.length > 1) {
    return {
      problem: `the consumer's event source mapping names ${secrets.length} secrets (${secrets.map(({ type }) => type).join(', ')}): pq cannot tell which one Lambda uses`,
    };
  }
  const mechanism = secret && SASL_BY_TYPE.get(secret.type);
  return {
    ...(secret && mechanism ? { sasl: { mechanism, secretArn: secret.uri } } : {}),
    privateCa: types.includes(PRIVATE_CA),
  };
}

/** A self-managed cluster: the secret's SASL over TLS, else no authentication. */
export function selfManagedAccess({ sasl, privateCa }: MappingCredentials): KafkaAccess {
  return sasl === undefined
    ? { authentication: NO_AUTHENTICATION, tls: privateCa }
    : { authentication: { kind: 'sasl', ...sasl }, tls: true };
}

/**
 * The listeners Lambda would use, in its order: with a secret, SASL/SCRAM's (MSK takes no other
 * SASL); without, IAM's, then TLS's, then plaintext's, the first the cluster has.
 */
export function mskRoutes({ sasl }: MappingCredentials, region: string): readonly MskRoute[] {
  if (sasl !== undefined) {
    return [
      {
        listener: 'BootstrapBrokerStringSaslScram',
        access: { authentication: { kind: 'sasl', ...sasl }, tls: true },
      },
    ];
  }
  return [
    {
      listener: 'BootstrapBrokerStringSaslIam',
      access: { authentication: { kind: 'msk-iam', region }, tls: true },
    },
    { listener: 'BootstrapBrokerStringTls', access: { authentication: NO_AUTHENTICATION, tls: true } },
    { listener: 'BootstrapBrokerString', access: { authentication: NO_AUTHENTICATION, tls: false } },
  ];
}

/** The first route whose listener the cluster has, with that listener's brokers. */
export function mskRoute(
  routes: readonly MskRoute[],
  brokers: MskBrokerStrings,
): { readonly access: KafkaAccess; readonly brokers: readonly string[] } | Problem {
  const route = routes.find(({ listener }) => (brokers[listener] ?? '') !== '');
  if (route === undefined) {
    const listeners = routes.map(({ listener }) => listener).join(' or ');
    return {
      problem: `kafka:GetBootstrapBrokers answered no ${listeners}: the cluster has no listener for the way the consumer's mapping authenticates`,
    };
  }
  const text = brokers[route.listener] ?? '';
  const parsed = parseBootstrap(text);
  if (parsed === undefined) {
    return {
      problem: `kafka:GetBootstrapBrokers answered ${route.listener} "${text}", not HOST:PORT[,HOST:PORT...]`,
    };
  }
  return { access: route.access, brokers: parsed };
}

/**
 * The user name and password of a SASL secret, JSON `{"username": ..., "password": ...}` as
 * Lambda reads it. A problem never quotes the secret.
 */
export function saslCredentials(
  secretText: string,
): { readonly username: string; readonly password: string } | Problem {
  const { username, password } = parsedObject(secretText);
  if (typeof username !== 'string' || username === '' || typeof password !== 'string' || password === '') {
    return { problem: 'holds no JSON {"username": "...", "password": "..."} as Lambda expects' };
  }
  return { username, password };
}

function parsedObject(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
