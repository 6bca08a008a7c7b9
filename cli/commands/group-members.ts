/** The records of one failure group (`list --group`), for the group forms of cause and replay. */
import type { QuarantineRecord } from '../../lambdas/adapters/quarantine-writer';
import { matchesGroup } from '../../lambdas/core/operator';
import type { Deployment } from '../deployment';
import { Refused } from '../errors';

/** Open and awaiting-operator records whose error signature is the group's, oldest first. */
export async function unresolvedInGroup(
  deployment: Deployment,
  selector: string,
): Promise<QuarantineRecord[]> {
  const [open, awaiting] = await Promise.all([
    deployment.records.list({ status: 'open' }),
    deployment.records.list({ status: 'awaiting-operator' }),
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
