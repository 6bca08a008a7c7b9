/**
 * The load the scale model plays (issue 10): 1,000 execution environments sharing 10,000
 * messages per second, an unattributable crash that starts an isolation trial, and an outage of
 * the outside system during which arrivals burst to 10x (producers retrying, a backlog). The
 * consumer's settings are the construct's defaults (contract/defaults.ts).
 */
export interface ScaleScenario {
  readonly environments: number;
  readonly messagesPerSecond: number;
  readonly batchSize: number;
  readonly seconds: number;
  /** An unattributable crash starts an isolation trial at this second. */
  readonly crashAtSecond: number;
  /** The outside system fails every call from `from` until `to` (seconds). */
  readonly outage: { readonly from: number; readonly to: number; readonly burstFactor: number };
  /** One message in this many is poison (quarantined at once, permanent error). */
  readonly poisonOneIn: number;
  /** Bytes per failure event item (pk, sk, key, kind, at, expiresAt). */
  readonly failureEventBytes: number;
}

export const ISSUE_SCENARIO: ScaleScenario = {
  environments: 1_000,
  messagesPerSecond: 10_000,
  batchSize: 10,
  seconds: 120,
  crashAtSecond: 10,
  outage: { from: 30, to: 60, burstFactor: 10 },
  poisonOneIn: 1_000,
  failureEventBytes: 150,
};
