/** The records of one failure group (`list --group`), and acting on them one by one. */
import { QUARANTINE_STATUS } from '../../contract/quarantine';
import { matchesGroup } from '../../lambdas/core/operator';
import type { QuarantineRecord } from '../../lambdas/core/quarantine-record';
import type { CommandResult } from '../command';
import type { Deployment } from '../deployment';
import { Refused } from '../errors';
import { table } from '../output';
import type { Progress } from '../progress';

/** Open and awaiting-operator records whose error signature is the group's, oldest first. */
export async function unresolvedInGroup(
  deployment: Deployment,
  selector: string,
): Promise<QuarantineRecord[]> {
  const [open, awaiting] = await Promise.all([
    deployment.records.list({ status: QUARANTINE_STATUS.open }),
    deployment.records.list({ status: QUARANTINE_STATUS.awaitingOperator }),
  ]);
  const members = [...open, ...awaiting]
    .filter((record) => matchesGroup(record.errorSignature, selector))
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  if (members.length === 0) {
    throw new Refused(
      `no open or awaiting-operator records in group ${selector} (pq list --group shows the groups)`,
    );
  }
  return members;
}

/** A member a rule refused; the others still proceed. */
export interface MemberRefusal {
  readonly id: string;
  readonly refused: string;
}

export function isRefusal(outcome: object): outcome is MemberRefusal {
  return 'refused' in outcome;
}

/**
 * Acts on each member in turn, one line each; refused members make the exit 2. A failure stops
 * the run and says how far it got: what was done stays done, and running the command again acts
 * only on what is left (done records are no longer open).
 */
export async function actOnGroup<Done extends { readonly id: string }>(
  members: readonly QuarantineRecord[],
  done: { readonly verb: string; readonly detail: (outcome: Done) => string },
  act: (record: QuarantineRecord) => Promise<Done | MemberRefusal>,
  progress: Progress,
): Promise<CommandResult> {
  const outcomes: (Done | MemberRefusal)[] = [];
  try {
    for (const record of members) {
      progress.step(outcomes.length, members.length);
      try {
        outcomes.push(await act(record));
      } catch (error) {
        const succeeded = outcomes.filter((outcome) => !isRefusal(outcome)).length;
        throw new Error(
          `${done.verb} ${succeeded} of ${members.length}, then ${record.id} failed: ${(error as Error).message}`,
        );
      }
    }
  } finally {
    progress.end();
  }
  const refused = outcomes.filter(isRefusal).length;
  const rows = outcomes.map((outcome) =>
    isRefusal(outcome)
      ? [outcome.id, 'REFUSED', outcome.refused]
      : [outcome.id, done.verb, done.detail(outcome)],
  );
  return {
    json: { outcomes },
    text: table(['ID', 'RESULT', 'DETAIL'], rows),
    ...(refused > 0 ? { refusal: `${refused} of ${outcomes.length} records refused (see the table)` } : {}),
  };
}
