/** The overall help: what an on-call engineer needs to find the pipeline and act on it. */
import type { Command } from './command';

export function overallHelp(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  const lines = commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`);
  return `pq - operate a poison-quarantine pipeline: inspect, decide, replay

Usage: pq COMMAND [options]          pq COMMAND --help for the details of one

Commands:
${lines.join('\n')}

Finding the pipeline (every command):
  --function NAME   the consumer Lambda function (or PQ_FUNCTION). pq reads the tables, bucket,
                    queue and state machines from its environment: nothing else to configure
  --region REGION   its region (or AWS_REGION / AWS_DEFAULT_REGION)
  --endpoint URL    LocalStack or another local AWS instead of AWS (or AWS_ENDPOINT_URL)
  --json            one JSON document on stdout, for scripts
Credentials come from the AWS SDK's default chain (AWS_PROFILE, environment, SSO, role). The
identity you act as is written in the audit trail of everything you change.

A typical incident:
  pq status                       paused? how much is quarantined, and why
  pq list --group                 which failures, how many of each
  pq show ID                      the evidence and the exact message
  pq cause ID "what went wrong"   required before any replay
  pq replay ID                    once the fix is deployed (or --group GROUP)
  pq discard ID --reason "..."    or: it must never run (resolved, content kept)

A breaker item nobody can read (pq status: Breaker UNREADABLE; the consumer holds every message):
  pq reset-breaker --reason "..."   repairs it into a stop, audited; then pq resume --reason "..."

Exit codes: 0 done; 2 refused or bad arguments, nothing changed (the reason is on stderr);
1 failed (AWS unreachable, access denied...: the message is on stderr).

Stored text (error messages, keys, causes, reasons) is printed with control characters and
bidi controls shown as escapes (\\x1b, \\u202e); --json carries the exact strings, with those
characters as JSON \\u escapes.
`;
}
