/**
 * The environment contract between the construct (lib/) and the consumer handler (lambdas/).
 * Both import these names, so a renamed variable cannot drift between deploy and runtime.
 */
export const ENV = {
  /** Name of the attempts (ledger) table. */
  attemptsTable: 'PQ_ATTEMPTS_TABLE',
  /** Name of the quarantine records table. */
  quarantineTable: 'PQ_QUARANTINE_TABLE',
  /** Name of the quarantine content bucket. */
  quarantineBucket: 'PQ_QUARANTINE_BUCKET',
  /** Name of the control-state table (breaker, isolation trial, failure window, freeze). */
  controlTable: 'PQ_CONTROL_TABLE',
  /** ARN of the pause state machine (rules 7 and 11): runs `pause-<epoch>`. */
  pauseStateMachineArn: 'PQ_PAUSE_STATE_MACHINE_ARN',
  /** ARN of the outcome-unknown verification state machine (rule 8): runs `ou-<quarantine id>`. */
  verificationStateMachineArn: 'PQ_VERIFICATION_STATE_MACHINE_ARN',
  /** What the consumer reads: `sqs` or `kafka` (contract/sources.ts); absent: `sqs`. */
  sourceKind: 'PQ_SOURCE_KIND',
  /**
   * Kafka only: where the records come from, recorded as evidence and used by a replay: the MSK
   * cluster ARN, or the self-managed cluster's bootstrap servers (comma-separated).
   */
  kafkaCluster: 'PQ_KAFKA_CLUSTER',
  /** Kafka only: the topic the mapping reads. */
  kafkaTopic: 'PQ_KAFKA_TOPIC',
  /**
   * Kafka only: failed half-open probes after which a record is quarantined `receive-limit`
   * (Kafka counts no deliveries: these stand in for SQS's receives, rule 3 over rule 7).
   */
  kafkaMaxFailedProbes: 'PQ_KAFKA_MAX_FAILED_PROBES',
  /**
   * Kafka only, "true" when the mapping reports batch item failures (provisioned mode): a batch
   * with a record that stays answers where each held partition resumes instead of failing whole,
   * so the other partitions of its payload are committed. Absent: "false".
   */
  kafkaPartialBatchResponse: 'PQ_KAFKA_PARTIAL_BATCH_RESPONSE',
  /** URL of the source queue (for visibility changes and replays); SQS only. */
  sourceQueueUrl: 'PQ_SOURCE_QUEUE_URL',
  /** ARN of the source queue (recorded as evidence); SQS only. */
  sourceQueueArn: 'PQ_SOURCE_QUEUE_ARN',
  /** Whether the source queue is FIFO ("true" / "false"). */
  fifo: 'PQ_FIFO',
  /** Charged attempts before quarantine. */
  attemptLimit: 'PQ_ATTEMPT_LIMIT',
  /** The consumer function's timeout in seconds: an attempt younger than it may still be running. */
  consumerTimeoutSeconds: 'PQ_CONSUMER_TIMEOUT_SECONDS',
  /**
   * The event source mapping's batching window in seconds: records that come back further apart
   * than it arrive in different batches (core/suspects.ts spreads crash suspects so).
   */
  batchingWindowSeconds: 'PQ_BATCHING_WINDOW_SECONDS',
  /** Records processed at once inside one execution environment. */
  inProcessConcurrency: 'PQ_IN_PROCESS_CONCURRENCY',
  /** Retries of a transient error before the message is quarantined. */
  transientRetries: 'PQ_TRANSIENT_RETRIES',
  /** Base of the exponential backoff for transient retries, in seconds. */
  backoffBaseSeconds: 'PQ_BACKOFF_BASE_SECONDS',
  /** Outage detection: failure events on distinct keys that trip the breaker. */
  outageFailureThreshold: 'PQ_OUTAGE_FAILURE_THRESHOLD',
  /** Outage detection window, in seconds. */
  outageWindowSeconds: 'PQ_OUTAGE_WINDOW_SECONDS',
  /** Messages without a crash that end an isolation trial. */
  isolationTrialMessages: 'PQ_ISOLATION_TRIAL_MESSAGES',
  /** Share (0..1) of recent messages quarantined above which quarantine stops and the consumer pauses. */
  quarantineShareThreshold: 'PQ_QUARANTINE_SHARE_THRESHOLD',
  /** Open quarantine records at which the consumer stops instead of quarantining more (rule 11a). */
  quarantineCapacity: 'PQ_QUARANTINE_CAPACITY',
  /** How many recent messages the quarantine share is computed over. */
  quarantineShareWindow: 'PQ_QUARANTINE_SHARE_WINDOW',
  /** How long a control-state read is cached per execution environment, in seconds. */
  controlCacheSeconds: 'PQ_CONTROL_CACHE_SECONDS',
  /** Days a ledger item is kept after its last attempt (DynamoDB TTL). */
  ledgerRetentionDays: 'PQ_LEDGER_RETENTION_DAYS',
  /** Optional: a JSON-pointer-like path into a JSON body used as the message key (default: messageId). */
  messageKeyPath: 'PQ_MESSAGE_KEY_PATH',
  /** First cool-down before a half-open probe, in seconds (doubles per failed probe). */
  breakerCooldownSeconds: 'PQ_BREAKER_COOLDOWN_SECONDS',
  /** The cool-down's cap, in seconds. */
  breakerMaxCooldownSeconds: 'PQ_BREAKER_MAX_COOLDOWN_SECONDS',
  /** How long a half-open probe watches outcomes, in seconds. */
  breakerProbeSeconds: 'PQ_BREAKER_PROBE_SECONDS',
  /** How often the pause path polls the mapping's state, in seconds. */
  breakerPollSeconds: 'PQ_BREAKER_POLL_SECONDS',
  /** Receives after which SQS moves a message to the backstop: the consumer quarantines before. */
  backstopMaxReceiveCount: 'PQ_BACKSTOP_MAX_RECEIVE_COUNT',
  /** Optional endpoint override for every AWS client (the embedded local AWS, LocalStack). */
  endpoint: 'AWS_ENDPOINT_URL',
} as const;
