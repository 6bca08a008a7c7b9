/**
 * Every default of poison-quarantine, in one place. The construct documents and applies them;
 * the runtime falls back to them; the docs quote them. Values follow ../shared/reference/behaviour.md.
 */
export const DEFAULTS = {
  /** Rule 2: charged attempts before a message is quarantined. */
  attemptLimit: 3,
  /** Rule 9: retries of a transient error (exponential backoff with jitter). */
  transientRetries: 3,
  /** Rule 9: backoff base; delay = base * 2^retry with full jitter, capped by SQS at 12 h. */
  backoffBaseSeconds: 2,
  /** Rule 7: failure events on this many distinct keys ... */
  outageFailureThreshold: 3,
  /** ... within this many seconds pause consumption. */
  outageWindowSeconds: 60,
  /** Rule 7: first cool-down before a half-open probe, in seconds; doubles per failed probe. */
  breakerCooldownSeconds: 60,
  /** Rule 7: the cool-down never grows past this, in seconds. */
  breakerMaxCooldownSeconds: 3600,
  /** Rule 7: how long a half-open probe watches outcomes before closing or reopening, in seconds. */
  breakerProbeSeconds: 30,
  /** Rule 7: how often the pause path polls the mapping until it reports Disabled, in seconds. */
  breakerPollSeconds: 5,
  /** Rule 6: messages without a crash that end an isolation trial. */
  isolationTrialMessages: 20,
  /** Rule 11b: quarantine share that stops automatic quarantine ... */
  quarantineShareThreshold: 0.2,
  /** ... over this many recent messages ... */
  quarantineShareWindow: 50,
  /** ... once at least this many have been seen (a share of 1 in 2 says nothing). */
  quarantineShareMinimum: 10,
  /** Rule 11a: open quarantine records above which the consumer stops. */
  quarantineCapacity: 10_000,
  /** Records processed at once inside one execution environment (1 makes every crash attributable). */
  inProcessConcurrency: 1,
  /** Seconds a control-state read is cached per execution environment. */
  controlCacheSeconds: 5,
  /** Days a ledger item lives after its last attempt. */
  ledgerRetentionDays: 14,
  /** Consumer function timeout, in seconds. */
  consumerTimeoutSeconds: 30,
  /** Consumer memory, in MiB. */
  consumerMemoryMiB: 512,
  /** Visibility timeout = this many times the consumer timeout (AWS advises at least 6). */
  visibilityTimeoutFactor: 6,
  /** ESM batch size. */
  batchSize: 10,
  /** ESM maximum batching window, in seconds. */
  maxBatchingWindowSeconds: 0,
  /** ESM maximum concurrency (2..1000). */
  maxConcurrency: 2,
  /** Native redrive backstop: our ledger decides poison well before SQS does. */
  backstopMaxReceiveCount: 10,
  /**
   * Receives a redrive limit must leave beyond `attemptLimit + transientRetries`: the delivery
   * that quarantines, and three that hand a record back without an attempt (a busy attempt, a
   * pause, the time guard). With the defaults, 3 + 3 + 4 = the default redrive of 10.
   */
  backstopReceiveMargin: 4,
  /**
   * Kafka keeps no receive count: a record's failed half-open probes stand in for SQS's receives
   * (the same 10), so a record that fails every probe leaves its partition for the quarantine
   * (`receive-limit`) instead of holding it for good. With the default cool-downs (60 s doubling
   * to 3,600 s) the tenth probe comes about four hours after the first.
   */
  kafkaMaxFailedProbes: 10,
  /** SQS maximum message size (a new queue still defaults to 256 KiB). */
  maxMessageSizeBytes: 1_048_576,
  /** SQS retention (the maximum). */
  retentionDays: 14,
  /** Days of consumer log retention. */
  logRetentionDays: 30,
  /** Days non-current quarantine object versions are kept. */
  noncurrentVersionDays: 90,
  /** Step Functions: heartbeat on an operator wait, in seconds (escalates, never decides). */
  operatorHeartbeatSeconds: 86_400,
  /** Step Functions: an operator wait's hard limit, in seconds (7 days). */
  operatorTimeoutSeconds: 604_800,
} as const;
