/**
 * What `npm run local:deploy -- --keep` prints for a person trying the pipeline: commands that run
 * exactly as printed from another terminal (the project directory, the local AWS's region,
 * endpoint and credentials included, since nothing on their machine points at it), and the
 * consumer's log lines while it runs, one short line each.
 */

import type { RunnerEvents } from '../tools/local-aws/runner';
import { parseLine } from './consumer-log';

export interface TryOutTarget {
  /** Where `npm run` finds this project's scripts. */
  readonly projectDir: string;
  readonly endpoint: string;
  readonly region: string;
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
  readonly functionName: string;
}

/** Demo messages (lambdas/demo/worker.ts): one that completes, one quarantined at once (rule 9). */
const EXAMPLE_BODIES = ['{"id":"hello"}', '{"id":"broken","behaviour":"throw-permanent"}'];

/** The commands, one a line, to run in that order in one shell. */
export function tryOutCommands(target: TryOutTarget): string[] {
  const fn = `--function ${shellQuote(target.functionName)}`;
  return [
    `cd ${shellQuote(target.projectDir)}`,
    // The SDK's own variables: pq and local:send read them as every AWS tool does.
    `export ${[
      ['AWS_ACCESS_KEY_ID', target.credentials.accessKeyId],
      ['AWS_SECRET_ACCESS_KEY', target.credentials.secretAccessKey],
      ['AWS_REGION', target.region],
      ['AWS_ENDPOINT_URL', target.endpoint],
    ]
      .map(([name, value]) => `${name}=${shellQuote(value)}`)
      .join(' ')}`,
    ...EXAMPLE_BODIES.map((body) => `npm run -s local:send -- ${fn} ${shellQuote(body)}`),
    `npm run -s pq -- status ${fn}`,
    `npm run -s pq -- list ${fn}`,
  ];
}

/** The value as one shell word: as it is when nothing in it is special, else single-quoted. */
export function shellQuote(value: string): string {
  if (/^[A-Za-z0-9_./:@%+=,-]+$/.test(value)) return value;
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** Fields every Powertools line carries that say nothing about the event itself. */
const ROUTINE_FIELDS = new Set([
  'level',
  'message',
  'timestamp',
  'service',
  'sampling_rate',
  'xray_trace_id',
]);

/**
 * A consumer log line for a terminal, its structured fields kept as JSON:
 * `env-1 12:00:01 DEBUG record processed {"event":...}`; an EMF metrics line as
 * `env-1 12:00:01 METRICS AttemptsStarted 1, Quarantines 1 (Reason permanent-error)`; any other
 * line as it came.
 */
export function consumerLogLine({ envId, line }: RunnerEvents['log']): string {
  const entry = parseLine(line);
  const metrics = entry && emfMetrics(entry);
  if (metrics) return `${envId} ${metrics}`;
  if (typeof entry?.level !== 'string' || typeof entry.message !== 'string') return `${envId} ${line}`;
  const rest = Object.fromEntries(
    Object.entries(entry).filter(
      ([name, value]) =>
        !ROUTINE_FIELDS.has(name) && !name.startsWith('function_') && !(name === 'cold_start' && !value),
    ),
  );
  const fields = Object.keys(rest).length === 0 ? '' : ` ${JSON.stringify(rest)}`;
  return `${envId} ${clock(entry.timestamp)}${entry.level} ${entry.message}${fields}`;
}

/** The metrics of an Embedded Metric Format line and the dimensions that tell them apart. */
function emfMetrics(entry: Record<string, unknown>): string | undefined {
  const aws = entry._aws as { Timestamp?: number; CloudWatchMetrics?: unknown } | undefined;
  if (!Array.isArray(aws?.CloudWatchMetrics)) return undefined;
  const directives = aws.CloudWatchMetrics as {
    Dimensions?: string[][];
    Metrics?: { Name?: string }[];
  }[];
  const names = directives.flatMap((directive) => (directive.Metrics ?? []).map((metric) => metric.Name));
  const dimensions = [...new Set(directives.flatMap((directive) => (directive.Dimensions ?? []).flat()))]
    // Every metric of the consumer carries these two: they tell nothing apart.
    .filter((name) => name !== 'service' && name !== 'Queue');
  const values = names.map((name) => `${name} ${JSON.stringify(entry[name ?? ''])}`).join(', ');
  const by = dimensions.map((name) => `${name} ${String(entry[name])}`).join(', ');
  const at = typeof aws.Timestamp === 'number' ? new Date(aws.Timestamp).toISOString() : undefined;
  return `${clock(at)}METRICS ${values}${by ? ` (${by})` : ''}`;
}

/** "12:00:01 " from an ISO-8601 timestamp (UTC, as the logger writes it); nothing without one. */
function clock(timestamp: unknown): string {
  const time = typeof timestamp === 'string' ? timestamp.match(/T(\d\d:\d\d:\d\d)/)?.[1] : undefined;
  return time ? `${time} ` : '';
}

/** A crash or a timeout prints nothing of its own: the runner says what the environment held. */
export function deathLine(
  kind: 'crash' | 'timeout',
  { envId, messageIds }: { readonly envId: string; readonly messageIds: readonly string[] },
): string {
  const what = kind === 'crash' ? 'crashed' : 'timed out and was killed';
  if (messageIds.length === 0) return `${envId} ${what} between invocations`;
  return `${envId} ${what} holding ${messageIds.join(', ')}: they come back after their visibility timeout`;
}
