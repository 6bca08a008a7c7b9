/**
 * Attempts-table item <-> domain LedgerItem (docs/design.md, "Attempts table"). The table's
 * partition key `pk` is the domain's `key`.
 */
import type { LedgerState } from '../../contract/ledger';
import type { LedgerEntry } from '../ports/ledger';
import {
  defined,
  evidenceFromItem,
  externalFromItem,
  type Item,
  ItemReader,
  intentFromItem,
} from './attribute-values';

/** Counters absent on an item (written before they existed) read as 0. */
export function toLedgerEntry(item: Item): LedgerEntry {
  const read = new ItemReader(item, 'attempts table item');
  return {
    key: read.string('pk'),
    state: read.string('state') as LedgerState,
    attempts: read.counter('attempts'),
    charged: read.counter('charged'),
    transientFailures: read.counter('transientFailures'),
    unknownFailures: read.counter('unknownFailures'),
    generation: read.counter('generation'),
    attemptId: read.string('attemptId'),
    messageId: read.string('messageId'),
    stage: read.string('stage'),
    firstAttemptAt: read.string('firstAttemptAt'),
    lastAttemptAt: read.string('lastAttemptAt'),
    ...defined({
      aliveUntil: read.optionalString('aliveUntil'),
      envId: read.optionalString('envId'),
      external: externalFromItem(read.optionalMap('external')),
      unrepeatable: externalFromItem(read.optionalMap('unrepeatable')),
      replayOf: read.optionalString('replayOf'),
      replaysStarted: read.optionalStringSet('replaysStarted'),
      bodyDigest: read.optionalString('bodyDigest'),
      lastError: evidenceFromItem(read.optionalMap('lastError')),
      quarantineId: read.optionalString('quarantineId'),
      quarantining: intentFromItem(read.optionalMap('quarantining')),
      crashes: read.optionalNumber('crashes'),
      lastAttemptCrashed: read.optionalBoolean('lastAttemptCrashed'),
      failedProbes: read.optionalNumber('failedProbes'),
      lastEndedAt: read.optionalString('lastEndedAt'),
      replayedAt: read.optionalString('replayedAt'),
    }),
  };
}

/** For error messages: never the body, only what identifies the attempt. */
export function describeEntry(item: LedgerEntry | undefined): string {
  return item === undefined ? 'no item' : `state ${item.state}, attempt ${item.attemptId}`;
}
