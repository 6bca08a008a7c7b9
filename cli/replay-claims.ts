/**
 * The CLI's side of a plain replay's claims (lambdas/adapters/replay-claims.ts): a record another
 * operator moved on first is a refusal (nothing changed, exit 2), not a failure.
 */

import type { ReplayClaims } from '../lambdas/adapters/replay-claims';
import type { AuditEntry } from '../lambdas/core/quarantine-record';
import { QuarantineStatusConflictError } from '../lambdas/ports/errors';
import { Refused } from './errors';

export class RefusingReplayClaims {
  constructor(private readonly claims: ReplayClaims) {}

  claim(id: string, entry: AuditEntry): Promise<void> {
    return refusedOnConflict(this.claims.claim(id, entry));
  }

  finish(id: string, entry: AuditEntry): Promise<void> {
    return refusedOnConflict(this.claims.finish(id, entry));
  }

  /** Undoes a claim whose replay did not happen, or whose message, if it went out, can no longer run. */
  release(id: string, entry: AuditEntry): Promise<void> {
    return refusedOnConflict(this.claims.release(id, entry));
  }
}

async function refusedOnConflict(write: Promise<void>): Promise<void> {
  try {
    await write;
  } catch (error) {
    if (error instanceof QuarantineStatusConflictError) throw new Refused(error.message);
    throw error;
  }
}
