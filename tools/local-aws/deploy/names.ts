/**
 * Physical names for resources the template leaves unnamed. CloudFormation would add a random
 * suffix; locally `<stack>-<logical id>` is kept readable and stable (one stack per fresh moto),
 * shortened with a hash only when a service's length limit requires it.
 */
import { createHash } from 'node:crypto';

export interface NameRule {
  readonly maxLength: number;
  /** S3 bucket names: lower case letters, digits, dots and hyphens only. */
  readonly lowercase?: boolean;
  /** Appended after shortening, e.g. `.fifo`. */
  readonly suffix?: string;
}

export function physicalName(stackName: string, logicalId: string, rule: NameRule): string {
  const suffix = rule.suffix ?? '';
  const raw = `${stackName}-${logicalId}`;
  const base = rule.lowercase
    ? raw.toLowerCase().replace(/[^a-z0-9.-]/g, '-')
    : raw.replace(/[^A-Za-z0-9_-]/g, '-');
  const room = rule.maxLength - suffix.length;
  if (base.length <= room) return base + suffix;
  const hash = createHash('sha256').update(raw).digest('hex').slice(0, 8);
  return `${base.slice(0, room - hash.length - 1)}-${hash}${suffix}`;
}
