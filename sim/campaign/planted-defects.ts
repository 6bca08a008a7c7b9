/**
 * Defects planted into the real consumer, one at a time, by planted-bugs.test.ts (its `vi.mock`
 * factories route the consumer's own functions through these wrappers). Each breaks one rule of
 * docs/behaviour.md the way a plausible change would, and every numbered rule has at least one
 * (BREAKS), as has each rule its section "Kafka sources" words for a topic (the Kafka adapter,
 * lambdas/sources/kafka.ts); the campaign must report each within 2,000 schedules. With no defect
 * planted every wrapper is the identity.
 */

import { LEDGER_STATE } from '../../contract/ledger';
import type { quarantined } from '../../lambdas/consumer/quarantine-step';
import type { processRecord } from '../../lambdas/consumer/record-lifecycle';
import type { ProcessorModule, QueueMessage, WorkContext } from '../../lambdas/consumer/types';
import type { workContext } from '../../lambdas/consumer/work-context';
import type { ConsumerConfig } from '../../lambdas/core/config';
import type { DeliveryDecision } from '../../lambdas/core/delivery';
import type { LedgerItem, Policy } from '../../lambdas/core/types';
import type { SourceRecord } from '../../lambdas/ports/source';
import type { kafkaSource } from '../../lambdas/sources/kafka';
import type { InvariantName } from './invariants';

/** The rules of docs/behaviour.md's "Kafka sources" a planted break of the Kafka adapter breaks. */
export const KAFKA_ORDER = 'Kafka: order';
export const KAFKA_WHAT_STAYS = 'Kafka: what stays';
export const KAFKA_NO_BACKSTOP = 'Kafka: no backstop';
export const KAFKA_LEASE = "Kafka: the attempt's lease";

/** Each defect: the rule of docs/behaviour.md it breaks and how (docs/rule-breaks.md is generated from these). */
export const BREAKS = {
  'crash-never-charged': { rule: '5', what: 'decideAfterCrash charges 0 for every crash.' },
  'collision-acknowledged-as-duplicate': {
    rule: '13',
    what: "A message under another message's key acknowledged as a duplicate (its bytes stored nowhere).",
  },
  'keyless-pending-skipped': {
    rule: '8',
    what: 'The pending record of a keyless external call is never written.',
  },
  'last-receive-never-seen': {
    rule: '3',
    what: 'The last receive before the backstop is never recognised (isLastReceive always false).',
  },
  'attempt-recorded-after-work': {
    rule: '1',
    what: 'The attempt is recorded after the work instead of before it.',
  },
  'limit-one-too-many': { rule: '2', what: 'The consumer runs with one attempt more than its limit.' },
  'quarantine-body-trimmed': { rule: '3', what: 'The quarantine keeps the body trimmed, not byte for byte.' },
  'record-resolved-by-itself': {
    rule: '4',
    what: 'A fresh record is written resolved: it leaves quarantine with nobody deciding.',
  },
  'shared-crash-charged': { rule: '6', what: 'A crash several messages shared is charged to each of them.' },
  'crash-suspects-run-together': {
    rule: '6',
    what: 'Crash suspects run with the fresh records, several in flight.',
  },
  'outage-never-trips': { rule: '7', what: 'The outage window never trips the breaker.' },
  'permanent-taken-for-transient': {
    rule: '9',
    what: 'A permanent error is taken for a transient one (retried, not quarantined).',
  },
  'time-guard-off': { rule: '10', what: 'The time guard starts every record, however little time is left.' },
  'unwritable-quarantine-acknowledged': {
    rule: '11a',
    what: 'A quarantine that could not be written acknowledges the message all the same.',
  },
  'share-never-stops': { rule: '11b', what: 'The quarantine share never stops automatic quarantine.' },
  'replay-without-a-cause': { rule: '12', what: 'A replay goes through without a recorded cause.' },
  'duplicate-worked-again': {
    rule: '13',
    what: 'A duplicate delivery of completed work runs the work again.',
  },
  'kafka-value-as-text': {
    rule: '3',
    what: "The Kafka adapter keeps only a record value's UTF-8 text: the quarantine holds the text, not the exact bytes.",
  },
  'kafka-headers-dropped': {
    rule: '3',
    what: "The Kafka adapter drops a record's headers from its evidence.",
  },
  'kafka-held-batch-acknowledged': {
    rule: KAFKA_WHAT_STAYS,
    what: 'The Kafka adapter answers a batch with records that stay as a success: the mapping commits past them.',
  },
  'kafka-partial-response-withheld': {
    rule: KAFKA_WHAT_STAYS,
    what: 'With partial batch responses on (provisioned mode), the Kafka adapter still fails a batch whole for a record that stays: every partition of its payload is held.',
  },
  'kafka-partition-order-lost': {
    rule: KAFKA_ORDER,
    what: "A Kafka source is run as an unordered one: a partition's records run side by side, and past one that stays.",
  },
  'kafka-group-is-the-topic': {
    rule: KAFKA_ORDER,
    what: 'Kafka records are grouped by topic, not topic-partition: a record that stays holds every partition of its payload.',
  },
  'kafka-lease-renewed-late': {
    rule: KAFKA_LEASE,
    what: "A Kafka attempt's lease is renewed a hundred leases late (leaseRenewalMs): a live worker is taken for dead.",
  },
  'kafka-probed-forever': {
    rule: KAFKA_NO_BACKSTOP,
    what: "A Kafka record's last failed probe is never recognised (isLastFailedProbe always false): it is probed for ever.",
  },
} as const satisfies Record<string, { readonly rule: string; readonly what: string }>;

export type Defect = keyof typeof BREAKS;

/**
 * Each invariant of a Kafka source (kafka-invariants.ts) with the planted break it must see on
 * its own, so that every one of them is shown able to fail, whichever invariant caught the break
 * first. An open one fails without a planted break (invariants.ts OPEN_INVARIANTS).
 */
export const KAFKA_INVARIANT_BREAKS = {
  'kafka-commits-only-ended-records': 'kafka-held-batch-acknowledged',
  'kafka-partition-order': 'kafka-partition-order-lost',
  'kafka-other-partitions-not-held': 'kafka-group-is-the-topic',
  'kafka-quarantine-keeps-the-record': 'kafka-headers-dropped',
  'kafka-no-partition-held-for-good': 'kafka-probed-forever',
} as const satisfies Partial<Record<InvariantName, Defect>>;

export const DEFECTS = Object.keys(BREAKS) as Defect[];

/** Rules no planted break reaches observably in the campaign, and why (the table says so). */
export const NOT_PLANTED: Record<string, string> = {
  '11c':
    "an operator's freeze of all replay is not modelled by the campaign's operator: `pq freeze` and replay's refusal while frozen are tested on the local AWS (test/integration/cli-*.test.ts); a replay without a cause (the other half of 11c) is rule 12's break",
};

/** The defect planted now; none: the consumer as it is. */
export const planted: { defect?: Defect } = {};

export function plantedDelivery(
  decision: DeliveryDecision,
  previous: LedgerItem,
  policy: Policy,
): DeliveryDecision {
  if (planted.defect === 'collision-acknowledged-as-duplicate' && decision.kind === 'key-collision')
    return { kind: 'duplicate', state: LEDGER_STATE.completed };
  if (
    planted.defect === 'shared-crash-charged' &&
    (decision.kind === 'proceed' || decision.kind === 'quarantine') &&
    decision.crash === 'unattributable'
  )
    return { ...decision, charge: 1 };
  if (planted.defect !== 'crash-never-charged') return decision;
  if ((decision.kind !== 'proceed' && decision.kind !== 'quarantine') || decision.crash === 'none')
    return decision;
  // Without the crash's charge the limit is not reached: the crash limit becomes another attempt.
  if (
    decision.kind === 'quarantine' &&
    decision.reason === 'crash-limit' &&
    previous.charged < policy.attemptLimit
  ) {
    const { crash, failureEvent } = decision;
    return {
      kind: 'proceed',
      charge: 0,
      crash,
      startIsolation: crash === 'unattributable',
      ...(failureEvent === undefined ? {} : { failureEvent }),
    };
  }
  return { ...decision, charge: 0 };
}

export function plantedLastReceive(lastReceive: boolean): boolean {
  return planted.defect === 'last-receive-never-seen' ? false : lastReceive;
}

export function plantedLastFailedProbe(lastFailedProbe: boolean): boolean {
  return planted.defect === 'kafka-probed-forever' ? false : lastFailedProbe;
}

/** The attempt's ledger as its work context writes to it, without a keyless call's `pending`. */
export function plantedWorkContext(actual: typeof workContext): typeof workContext {
  return (deps, attempt, remainingTimeMs) => {
    if (planted.defect !== 'keyless-pending-skipped') return actual(deps, attempt, remainingTimeMs);
    const ledger = Object.create(deps.ledger) as typeof deps.ledger;
    ledger.recordExternal = async (key, attemptId, external, unrepeatable) =>
      external.status === 'pending' && external.idempotencyKey === undefined
        ? ({ key } as Awaited<ReturnType<typeof ledger.recordExternal>>)
        : deps.ledger.recordExternal(key, attemptId, external, unrepeatable);
    return actual({ ...deps, ledger }, attempt, remainingTimeMs);
  };
}

/**
 * The work runs first (its attempt number guessed from SQS's receive count, its stages and calls
 * written nowhere), then the record's life as before, with the work's outcome replayed into it.
 */
export function plantedProcessRecord(actual: typeof processRecord, keyFor: KeyFor): typeof processRecord {
  return async (deps, session, record, remainingTimeMs) => {
    if (planted.defect !== 'attempt-recorded-after-work')
      return actual(deps, session, record, remainingTimeMs);
    const key = keyFor(record, deps.config.messageKeyPath);
    const failure = await workUnrecorded(deps.processor, record, key, remainingTimeMs);
    const replayed: ProcessorModule = {
      ...(deps.processor.classify === undefined ? {} : { classify: deps.processor.classify }),
      async process() {
        if (failure !== undefined) throw failure.error;
      },
    };
    return actual({ ...deps, processor: replayed }, session, record, remainingTimeMs);
  };
}

/** The key the consumer works a record under (begin-attempt.ts `keyOfRecord`). */
type KeyFor = (record: SourceRecord, keyPath: string | undefined) => string;

async function workUnrecorded(
  processor: ProcessorModule,
  record: SourceRecord,
  key: string,
  remainingTimeMs: () => number,
): Promise<{ readonly error: unknown } | undefined> {
  const message: QueueMessage = {
    messageId: record.messageId,
    key,
    body: record.body,
    attributes: record.attributes as unknown as Record<string, string | undefined>,
    messageAttributes: record.messageAttributes,
    attempt: Number(record.attributes.ApproximateReceiveCount ?? '1'),
  };
  const ctx: WorkContext = {
    remainingTimeMs,
    stage: async () => undefined,
    external: (_name, call) => call(),
  };
  try {
    await processor.process(message, ctx);
    return undefined;
  } catch (error) {
    return { error };
  }
}

/** Whether `defect` is the one planted now. */
export function isPlanted(defect: Defect): boolean {
  return planted.defect === defect;
}

/**
 * The consumer's configuration, with one attempt more than its limit, or a Kafka source taken
 * for an unordered one, when so planted.
 */
export function plantedConfig<T extends Pick<ConsumerConfig, 'policy' | 'ordered' | 'kafka'>>(config: T): T {
  if (planted.defect === 'kafka-partition-order-lost' && config.kafka !== undefined)
    return { ...config, ordered: false };
  if (planted.defect !== 'limit-one-too-many') return config;
  return { ...config, policy: { ...config.policy, attemptLimit: config.policy.attemptLimit + 1 } };
}

/**
 * The Kafka adapter (lambdas/sources/kafka.ts) with its records mapped without the exact bytes,
 * without headers or grouped by topic, with a held batch answered as a success, or failed whole
 * though the mapping reads partial batch responses.
 */
export function plantedKafkaSource(actual: typeof kafkaSource): typeof kafkaSource {
  return (options) => {
    const withheld = planted.defect === 'kafka-partial-response-withheld';
    const source = actual(withheld ? { ...options, partialBatchResponse: false } : options);
    const port: typeof source.port = {
      records: (event) => source.port.records(event).map(plantedKafkaRecord),
      respond: async (stay, context) => {
        if (planted.defect !== 'kafka-held-batch-acknowledged') return source.port.respond(stay, context);
        try {
          // A partial answer naming where held partitions resume is dropped as well.
          await source.port.respond(stay, context);
          return { batchItemFailures: [] };
        } catch (error) {
          // By name: a value import of the adapter here would be the mock's own factory importing it.
          if ((error as Error).name === 'RecordsHeldError') return { batchItemFailures: [] };
          throw error;
        }
      },
    };
    return { queue: source.queue, port };
  };
}

function plantedKafkaRecord(record: SourceRecord): SourceRecord {
  if (planted.defect === 'kafka-value-as-text') {
    const { exactBodyBase64: _exact, ...asText } = record;
    return asText;
  }
  if (planted.defect === 'kafka-headers-dropped' && record.kafka !== undefined)
    return { ...record, kafka: { ...record.kafka, headers: [] } };
  if (planted.defect === 'kafka-group-is-the-topic' && record.kafka !== undefined)
    return { ...record, orderGroup: record.kafka.topic };
  return record;
}

/**
 * The quarantine step over a store that trims the body or writes its records resolved, or one
 * that takes a quarantine it could not write for done.
 */
export function plantedQuarantined(actual: typeof quarantined): typeof quarantined {
  return async (deps, ...rest) => {
    if (planted.defect === 'unwritable-quarantine-acknowledged') {
      const outcome = await actual(deps, ...rest);
      return outcome.kind === 'returned' && outcome.why === 'quarantine-unwritable'
        ? { kind: 'quarantined', quarantineId: 'never-written' }
        : outcome;
    }
    if (planted.defect !== 'quarantine-body-trimmed' && planted.defect !== 'record-resolved-by-itself')
      return actual(deps, ...rest);
    const quarantine = Object.create(deps.quarantine) as typeof deps.quarantine;
    quarantine.putContent = (id, content) =>
      deps.quarantine.putContent(
        id,
        planted.defect === 'quarantine-body-trimmed' ? { ...content, body: content.body.trim() } : content,
      );
    quarantine.putRecord = (record) =>
      deps.quarantine.putRecord(
        planted.defect === 'record-resolved-by-itself' ? { ...record, status: 'resolved' as never } : record,
      );
    return actual({ ...deps, quarantine }, ...rest);
  };
}

/**
 * A duplicate of completed work runs the work again (its stages and calls written nowhere), then
 * is acknowledged as before.
 */
export function plantedDuplicate(actual: typeof processRecord, keyFor: KeyFor): typeof processRecord {
  return async (deps, session, record, remainingTimeMs) => {
    const outcome = await actual(deps, session, record, remainingTimeMs);
    if (planted.defect === 'duplicate-worked-again' && outcome.kind === 'duplicate')
      await workUnrecorded(
        deps.processor,
        record,
        keyFor(record, deps.config.messageKeyPath),
        remainingTimeMs,
      );
    return outcome;
  };
}
