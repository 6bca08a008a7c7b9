import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../contract/defaults';
import { ENV } from '../../contract/env';
import { type ConsumerConfig, type Environment, parseConfig } from '../../lambdas/core/config';
import { ConfigError, type ConfigProblem } from '../../lambdas/core/errors';
import { defaultPolicy } from '../../lambdas/core/types';

const required: Environment = {
  [ENV.attemptsTable]: 'pq-attempts',
  [ENV.quarantineTable]: 'pq-quarantine',
  [ENV.quarantineBucket]: 'pq-quarantine-123456789012',
  [ENV.controlTable]: 'pq-control',
  [ENV.pauseStateMachineArn]: 'arn:aws:states:eu-west-1:123456789012:stateMachine:pq-pause',
  [ENV.verificationStateMachineArn]: 'arn:aws:states:eu-west-1:123456789012:stateMachine:pq-verification',
  [ENV.sourceQueueUrl]: 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders',
  [ENV.sourceQueueArn]: 'arn:aws:sqs:eu-west-1:123456789012:orders',
};

const problemsOf = (env: Environment): readonly ConfigProblem[] => {
  try {
    parseConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('parseConfig accepted the environment');
};

describe('parseConfig', () => {
  it('given only the required names, then every optional value is its default', () => {
    // Act
    const config = parseConfig(required);

    // Assess
    expect(config).toStrictEqual<ConsumerConfig>({
      attemptsTable: 'pq-attempts',
      quarantineTable: 'pq-quarantine',
      quarantineBucket: 'pq-quarantine-123456789012',
      controlTable: 'pq-control',
      stateMachines: {
        pause: 'arn:aws:states:eu-west-1:123456789012:stateMachine:pq-pause',
        verification: 'arn:aws:states:eu-west-1:123456789012:stateMachine:pq-verification',
      },
      sourceKind: 'sqs',
      sourceQueueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders',
      sourceQueueArn: 'arn:aws:sqs:eu-west-1:123456789012:orders',
      fifo: false,
      ordered: false,
      policy: defaultPolicy(),
      quarantineCapacity: DEFAULTS.quarantineCapacity,
      backstopMaxReceiveCount: DEFAULTS.backstopMaxReceiveCount,
      inProcessConcurrency: DEFAULTS.inProcessConcurrency,
      controlCacheSeconds: DEFAULTS.controlCacheSeconds,
      ledgerRetentionDays: DEFAULTS.ledgerRetentionDays,
      breakerTimings: {
        cooldownSeconds: DEFAULTS.breakerCooldownSeconds,
        maxCooldownSeconds: DEFAULTS.breakerMaxCooldownSeconds,
        probeSeconds: DEFAULTS.breakerProbeSeconds,
        pollSeconds: DEFAULTS.breakerPollSeconds,
      },
    });
  });

  it('given every optional name, then each is read', () => {
    // Prepare
    const env: Environment = {
      ...required,
      [ENV.fifo]: 'true',
      [ENV.attemptLimit]: '5',
      [ENV.consumerTimeoutSeconds]: '12',
      [ENV.inProcessConcurrency]: '4',
      [ENV.transientRetries]: '0',
      [ENV.backoffBaseSeconds]: '3',
      [ENV.outageFailureThreshold]: '4',
      [ENV.outageWindowSeconds]: '120',
      [ENV.isolationTrialMessages]: '30',
      [ENV.quarantineShareThreshold]: '0.35',
      [ENV.quarantineShareWindow]: '100',
      [ENV.quarantineCapacity]: '500',
      [ENV.backstopMaxReceiveCount]: '12',
      [ENV.controlCacheSeconds]: '0',
      [ENV.ledgerRetentionDays]: '7',
      [ENV.messageKeyPath]: 'order.id',
      [ENV.breakerCooldownSeconds]: '2',
      [ENV.breakerMaxCooldownSeconds]: '8',
      [ENV.breakerProbeSeconds]: '3',
      [ENV.breakerPollSeconds]: '1',
      [ENV.endpoint]: 'http://127.0.0.1:5000',
    };

    // Act
    const config = parseConfig(env);

    // Assess
    expect(config).toStrictEqual<ConsumerConfig>({
      ...parseConfig(required),
      fifo: true,
      ordered: true,
      policy: {
        ...defaultPolicy(),
        attemptLimit: 5,
        attemptTimeoutSeconds: 12,
        transientRetries: 0,
        backoffBaseSeconds: 3,
        outageFailureThreshold: 4,
        outageWindowSeconds: 120,
        isolationTrialMessages: 30,
        quarantineShareThreshold: 0.35,
        quarantineShareWindow: 100,
        breakerCooldownSeconds: 2,
        breakerMaxCooldownSeconds: 8,
      },
      breakerTimings: { cooldownSeconds: 2, maxCooldownSeconds: 8, probeSeconds: 3, pollSeconds: 1 },
      quarantineCapacity: 500,
      backstopMaxReceiveCount: 12,
      inProcessConcurrency: 4,
      controlCacheSeconds: 0,
      ledgerRetentionDays: 7,
      messageKeyPath: 'order.id',
    });
  });

  it('given every key bad at once, then one ConfigError names each key and value', () => {
    // Prepare
    const env: Environment = {
      [ENV.attemptsTable]: '',
      [ENV.quarantineTable]: '   ',
      [ENV.pauseStateMachineArn]: 'pq-pause',
      [ENV.sourceQueueUrl]: 'arn:aws:sqs:eu-west-1:123456789012:orders',
      [ENV.sourceQueueArn]: 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders',
      [ENV.fifo]: 'yes',
      [ENV.attemptLimit]: '0',
      [ENV.inProcessConcurrency]: '1.5',
      [ENV.transientRetries]: '-1',
      [ENV.backoffBaseSeconds]: '1e3',
      [ENV.outageFailureThreshold]: 'three',
      [ENV.outageWindowSeconds]: '0x3c',
      [ENV.isolationTrialMessages]: '99999999999999999999',
      [ENV.quarantineShareThreshold]: '20%',
      [ENV.quarantineShareWindow]: '0',
      [ENV.controlCacheSeconds]: '-5',
      [ENV.ledgerRetentionDays]: '0',
      [ENV.messageKeyPath]: 'order..id',
      PQ_ATEMPT_LIMIT: '3',
    };

    // Act
    const problems = problemsOf(env);

    // Assess
    expect(problems).toStrictEqual<ConfigProblem[]>([
      { key: ENV.attemptsTable, value: '', expected: 'a table name' },
      { key: ENV.quarantineTable, value: '   ', expected: 'a table name' },
      { key: ENV.quarantineBucket, value: undefined, expected: 'a bucket name' },
      { key: ENV.controlTable, value: undefined, expected: 'a table name' },
      { key: ENV.pauseStateMachineArn, value: 'pq-pause', expected: 'a state machine ARN' },
      { key: ENV.verificationStateMachineArn, value: undefined, expected: 'a state machine ARN' },
      {
        key: ENV.sourceQueueUrl,
        value: 'arn:aws:sqs:eu-west-1:123456789012:orders',
        expected: 'an SQS queue URL',
      },
      {
        key: ENV.sourceQueueArn,
        value: 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders',
        expected: 'an SQS queue ARN',
      },
      { key: ENV.fifo, value: 'yes', expected: '"true" or "false"' },
      { key: ENV.attemptLimit, value: '0', expected: 'an integer >= 1' },
      { key: ENV.inProcessConcurrency, value: '1.5', expected: 'an integer >= 1' },
      { key: ENV.transientRetries, value: '-1', expected: 'an integer >= 0' },
      { key: ENV.backoffBaseSeconds, value: '1e3', expected: 'an integer >= 1' },
      { key: ENV.outageFailureThreshold, value: 'three', expected: 'an integer >= 1' },
      { key: ENV.outageWindowSeconds, value: '0x3c', expected: 'an integer >= 1' },
      { key: ENV.isolationTrialMessages, value: '99999999999999999999', expected: 'an integer >= 1' },
      { key: ENV.quarantineShareThreshold, value: '20%', expected: 'a number between 0 and 1, exclusive' },
      { key: ENV.quarantineShareWindow, value: '0', expected: 'an integer >= 1' },
      { key: ENV.controlCacheSeconds, value: '-5', expected: 'an integer >= 0' },
      { key: ENV.ledgerRetentionDays, value: '0', expected: 'an integer >= 1' },
      { key: ENV.messageKeyPath, value: 'order..id', expected: 'a dotted path like order.id' },
      { key: 'PQ_ATEMPT_LIMIT', value: '3', expected: 'one of the names in contract/env.ts' },
    ]);
  });

  it('given bad keys, then the error message names each key and the value given', () => {
    expect(() =>
      parseConfig({ ...required, [ENV.attemptLimit]: '0', [ENV.controlTable]: undefined }),
    ).toThrow(
      new ConfigError([
        { key: ENV.controlTable, value: undefined, expected: 'a table name' },
        { key: ENV.attemptLimit, value: '0', expected: 'an integer >= 1' },
      ]),
    );
    expect(() => parseConfig({ ...required, [ENV.attemptLimit]: '0' })).toThrow(
      'Invalid poison-quarantine configuration: PQ_ATTEMPT_LIMIT must be an integer >= 1 (given "0")',
    );
  });

  it.each([
    ['0.2', 0.2],
    ['.5', 0.5],
    ['0.999', 0.999],
  ])('given a quarantine share of %s, then it is read', (value, expected) => {
    const config = parseConfig({ ...required, [ENV.quarantineShareThreshold]: value });

    expect(config.policy.quarantineShareThreshold).toBe(expected);
  });

  it.each(['0', '1', '1.0', '-0.1', '0.2.1'])(
    'given a quarantine share of %s, then it is refused',
    (value) => {
      expect(problemsOf({ ...required, [ENV.quarantineShareThreshold]: value })).toStrictEqual([
        { key: ENV.quarantineShareThreshold, value, expected: 'a number between 0 and 1, exclusive' },
      ]);
    },
  );

  it.each([
    [
      'a FIFO queue URL without PQ_FIFO',
      'https://sqs.eu-west-1.amazonaws.com/123456789012/orders.fifo',
      undefined,
      true,
    ],
    [
      'a standard queue URL without PQ_FIFO',
      'https://sqs.eu-west-1.amazonaws.com/123456789012/orders',
      undefined,
      false,
    ],
    ['PQ_FIFO wins over the name', 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders', 'true', true],
  ])('fifo: given %s, then %s', (_name, url, fifo, expected) => {
    const config = parseConfig({ ...required, [ENV.sourceQueueUrl]: url, [ENV.fifo]: fifo });

    expect(config.fifo).toBe(expected);
  });

  it.each([
    ['an empty optional value means unset', { [ENV.attemptLimit]: '' }, { attemptLimit: 3 }],
    ['surrounding whitespace is ignored', { [ENV.attemptLimit]: ' 7 ' }, { attemptLimit: 7 }],
    [
      'a share window below the minimum lowers the minimum, or no verdict would ever come',
      { [ENV.quarantineShareWindow]: '6' },
      { quarantineShareWindow: 6, quarantineShareMinimum: 6 },
    ],
  ])('policy: %s', (_name, env, expected) => {
    expect(parseConfig({ ...required, ...env }).policy).toStrictEqual({ ...defaultPolicy(), ...expected });
  });
});

describe('parseConfig for a Kafka source (issue 38)', () => {
  const { [ENV.sourceQueueUrl]: _url, [ENV.sourceQueueArn]: _arn, ...common } = required;
  const kafka: Environment = {
    ...common,
    [ENV.sourceKind]: 'kafka',
    [ENV.kafkaCluster]: 'arn:aws:kafka:eu-west-1:123456789012:cluster/orders/abc',
    [ENV.kafkaTopic]: 'orders',
  };

  it('given a Kafka source, then it is ordered, needs no queue, and names the cluster and topic', () => {
    // Act
    const config = parseConfig(kafka);

    // Assess
    expect(config).toMatchObject({
      sourceKind: 'kafka',
      sourceQueueUrl: '',
      sourceQueueArn: 'arn:aws:kafka:eu-west-1:123456789012:cluster/orders/abc/orders',
      fifo: false,
      ordered: true,
      kafka: {
        cluster: 'arn:aws:kafka:eu-west-1:123456789012:cluster/orders/abc',
        topic: 'orders',
        maxFailedProbes: DEFAULTS.kafkaMaxFailedProbes,
      },
    });
  });

  it('given a limit of failed probes, then it is read; one below 1 or no integer is named', () => {
    // Act
    const config = parseConfig({ ...kafka, [ENV.kafkaMaxFailedProbes]: '1' });
    const problems = ['0', '2.5', 'ten'].map((value) =>
      problemsOf({ ...kafka, [ENV.kafkaMaxFailedProbes]: value }),
    );

    // Assess
    expect(config.kafka?.maxFailedProbes).toBe(1);
    expect(problems.map((found) => found.map((problem) => problem.key))).toStrictEqual([
      [ENV.kafkaMaxFailedProbes],
      [ENV.kafkaMaxFailedProbes],
      [ENV.kafkaMaxFailedProbes],
    ]);
  });

  it('given a Kafka source without its cluster or topic, then both are named with what they take', () => {
    // Act
    const problems = problemsOf({ ...common, [ENV.sourceKind]: 'kafka' });

    // Assess
    expect(problems).toStrictEqual([
      { key: ENV.kafkaCluster, value: undefined, expected: 'an MSK cluster ARN or bootstrap servers' },
      { key: ENV.kafkaTopic, value: undefined, expected: 'a topic name' },
    ]);
  });

  it('given a Kafka source with the queue variables, then each is refused as the wrong source', () => {
    // Act
    const problems = problemsOf({ ...kafka, ...required, [ENV.fifo]: 'false' });

    // Assess
    expect(problems).toStrictEqual([
      {
        key: ENV.sourceQueueUrl,
        value: required[ENV.sourceQueueUrl],
        expected: 'unset for the kafka source',
      },
      {
        key: ENV.sourceQueueArn,
        value: required[ENV.sourceQueueArn],
        expected: 'unset for the kafka source',
      },
      { key: ENV.fifo, value: 'false', expected: 'unset for the kafka source' },
    ]);
  });

  it('given an SQS source with a Kafka topic and probe limit, then both are refused', () => {
    // Act
    const problems = problemsOf({ ...required, [ENV.kafkaTopic]: 'orders', [ENV.kafkaMaxFailedProbes]: '3' });

    // Assess
    expect(problems).toStrictEqual([
      { key: ENV.kafkaTopic, value: 'orders', expected: 'unset for the sqs source' },
      { key: ENV.kafkaMaxFailedProbes, value: '3', expected: 'unset for the sqs source' },
    ]);
  });

  it('given an unknown source kind, then it is named', () => {
    // Act
    const problems = ['kinesis', 'xsqs', 'kafkax'].map((kind) =>
      problemsOf({ ...required, [ENV.sourceKind]: kind }),
    );

    // Assess
    expect(problems).toStrictEqual(
      ['kinesis', 'xsqs', 'kafkax'].map((kind) => [
        { key: ENV.sourceKind, value: kind, expected: 'sqs or kafka' },
      ]),
    );
  });
});
