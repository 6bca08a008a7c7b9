/**
 * The paths a message can take through the consumer, each staged with the world's scripted
 * processor (what each attempt does), and how each must end, so a path that silently turned
 * into another one fails the bench instead of being priced under the wrong name.
 */
import type { Step } from '../../sim/world/scripted-processor';

export interface MessagePath {
  /** What attempt n does: `attempts[n - 1]`; an empty list completes. */
  readonly attempts: readonly (readonly Step[])[];
  /** The message completed once before: only its next delivery is measured (rule 13). */
  readonly completedBefore?: boolean;
  /** How the message must end: its ledger state, charged attempts and quarantine reason. */
  readonly ends: {
    readonly state: 'completed' | 'quarantined';
    readonly charged: number;
    readonly reason?: string;
  };
}

export const PATH_NAMES = [
  'healthy',
  'transientRetry',
  'chargedCrash',
  'quarantine',
  'outcomeUnknown',
  'duplicate',
] as const;
export type PathName = (typeof PATH_NAMES)[number];

export const PATHS: Readonly<Record<PathName, MessagePath>> = {
  healthy: { attempts: [[]], ends: { state: 'completed', charged: 0 } },
  // A transient error (rule 9), then a successful retry.
  transientRetry: {
    attempts: [[{ do: 'throw', error: 'transient' }], []],
    ends: { state: 'completed', charged: 0 },
  },
  // The worker dies with this message alone in flight (rule 5), then the retry succeeds.
  chargedCrash: { attempts: [[{ do: 'crash' }], []], ends: { state: 'completed', charged: 1 } },
  // A permanent error: quarantined at once (rules 3, 9).
  quarantine: {
    attempts: [[{ do: 'throw', error: 'permanent' }]],
    ends: { state: 'quarantined', charged: 1, reason: 'permanent-error' },
  },
  // The worker dies after sending a keyless external call (rule 8).
  outcomeUnknown: {
    attempts: [[{ do: 'external', name: 'charge', result: 'crash-during' }]],
    ends: { state: 'quarantined', charged: 0, reason: 'outcome-unknown' },
  },
  // The same message again after it completed.
  duplicate: { attempts: [[]], completedBefore: true, ends: { state: 'completed', charged: 0 } },
};
