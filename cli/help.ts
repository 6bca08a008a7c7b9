/** The overall help: what an on-call engineer needs to find the pipeline and act on it. */
import type { Command, CommandEntry } from './command';

export function overallHelp(commands: readonly CommandEntry[]): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  const lines = commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`);
  return `pq - operate a poison-quarantine pipeline: inspect, decide, replay

Usage: pq [global options] COMMAND [options]
       pq help COMMAND (or pq COMMAND --help, -h) for the details of one

Commands:
${lines.join('\n')}

Global options, before or after the command (pq --region eu-west-1 status = pq status --region ...):
  --function NAME       the consumer Lambda function (or PQ_FUNCTION). pq reads the tables, bucket,
                        queue and state machines from its environment: nothing else to configure
  --region REGION       its region (or AWS_REGION / AWS_DEFAULT_REGION, or the profile's region)
  --profile NAME        a profile of your AWS config and credentials files (or AWS_PROFILE)
  --endpoint-url URL    LocalStack or another local AWS instead of AWS (or AWS_ENDPOINT_URL);
                        --endpoint is the same
  --kafka-bootstrap HOST:PORT[,HOST:PORT...]
                        a Kafka consumer's brokers, for pq replay to produce to (or
                        PQ_KAFKA_BOOTSTRAP), instead of its PQ_KAFKA_CLUSTER's or those MSK lists;
                        pq authenticates as the consumer's event source mapping does either way
  --output FORMAT       table (the default): for people, aligned; text: tab-separated lines for
                        grep, cut and awk, as the AWS CLI's text; json: one JSON document, for scripts
  --json                --output json
  -h, --help            this help, or a command's
  --version             pq's version, Node's and the platform's
Credentials come from the AWS SDK's default chain (profile, environment, SSO, role). The
identity you act as is written in the audit trail of everything you change.

A typical incident:
  pq status                       paused? how much is quarantined, and why
  pq list --group                 which failures, how many of each
  pq show ID                      the evidence and the exact message
  pq cause ID "what went wrong"   required before any replay
  pq replay ID                    once the fix is deployed
  pq replay --group G --dry-run   what a group's replay would send; then --rate 5 paces the real one
  pq discard ID --reason "..."    or: it must never run (resolved, content kept)

A breaker item nobody can read (pq status: Breaker UNREADABLE; the consumer holds every message):
  pq reset-breaker --reason "..."   repairs it into a stop, audited; then pq resume --reason "..."

A stop at capacity (reason quarantine-capacity) with fewer open records than the count says:
  pq recount --reason "..."         sets the count to the records; then pq resume --reason "..."

Exit codes (the reason is on stderr):
  0    done
  1    failed: AWS unreachable, access denied, a write that did not happen
  2    refused by a rule (a cause first, frozen, not paused...): nothing changed
  3    not found: no such record, backstop message or consumer function; nothing changed
  252  bad arguments (as the AWS CLI): nothing ran

Stored text (error messages, keys, causes, reasons) is printed with control characters and
bidi controls shown as escapes (\\x1b, \\u202e); --output json carries the exact strings, with those
characters as JSON \\u escapes.
`;
}

/** A command's own help, and the global options every command takes. */
export function commandHelp(command: Command): string {
  return `${command.help}

Global options (before or after the command; pq --help explains them):
  --function NAME  --region REGION  --profile NAME  --endpoint-url URL
  --kafka-bootstrap HOST:PORT[,...]  --output table|text|json (--json)  -h, --help  --version
`;
}

/**
 * Choices of an option as its help lists them, `a | b | c`, wrapped within `width` columns and
 * indented as the first line: a list kept in contract/ shows whole, however it grows.
 */
export function choicesHelp(choices: readonly string[], indent: number, width = 80): string {
  const lines: string[] = [];
  for (const choice of choices) {
    const line = lines.pop();
    if (line === undefined) lines.push(choice);
    else if (indent + line.length + ' | '.length + choice.length <= width) lines.push(`${line} | ${choice}`);
    else lines.push(`${line} |`, choice);
  }
  return lines.join(`\n${' '.repeat(indent)}`);
}
