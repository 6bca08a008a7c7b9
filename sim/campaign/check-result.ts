/** What one invariant's check found in one schedule (invariants.ts names the invariant). */
export interface CheckResult {
  /** False when the schedule does not meet the invariant's precondition (not counted as checked). */
  readonly applicable: boolean;
  readonly problems: readonly string[];
}
