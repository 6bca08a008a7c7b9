/**
 * `npm run -s campaign -- --schedules N --seed S [--json] [--list-fault-points] [--replay FILE|JSON]`
 *
 * Runs N seeded schedules over the in-memory world through the real consumer and checks the
 * invariants after each (--replay: one schedule given as JSON, or a file holding one or a case).
 * `--help` prints the usage and runs nothing.
 * Exit codes: 0 every invariant held, 1 a violation was found, 2 bad usage.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { exitQuietlyOnBrokenPipe } from '../../cli/broken-pipe';
import { NO_PROGRESS, type Progress, progressLine } from '../../cli/progress';
import { FAULT_POINTS } from '../faults/fault-points';
import { describeSchedule } from './describe';
import { type CampaignReport, runCampaign, runOne } from './explore';
import { INVARIANTS, type InvariantName } from './invariants';
import { isKafka, parseSchedule } from './schedule';

export interface Streams {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  /** Schedules run so far, on a terminal (cli/progress.ts); none in tests. */
  readonly progress?: Progress;
}

const USAGE = `Usage: npm run -s campaign -- [--schedules N] [--seed S] [--shrink K] [--json]
       npm run -s campaign -- --replay FILE|JSON [--json]
       npm run -s campaign -- --list-fault-points

Runs N seeded schedules (deliveries, crashes, SDK faults, outages, redeploys, operator answers)
through the real consumer over the in-memory world, and checks every invariant and the oracle
after each (docs/rehearsals.md). About one in six schedules not at scale reads a Kafka topic
(partitions, ordered delivery, offset commits, rebalances) instead of an SQS queue. A violation is printed with its seed and a shrunk schedule.

  --schedules N        how many schedules (default 1000)
  --seed S             the campaign's seed: the same seed runs the same schedules (default 1)
  --shrink K           violations per invariant shrunk to a minimal schedule (default 3; 0: none)
  --json               print the report as one JSON document
  --replay FILE|JSON   run one schedule again: given as JSON, or a file holding one or a kept case
                       (sim/campaign/cases/)
  --list-fault-points  print the named fault points, one a line
  --help, -h           this text, and nothing run

Example: npm run -s campaign -- --schedules 200 --seed 7

Exit code: 0 every invariant held, 1 a violation was found, 2 bad usage.`;

export async function main(argv: readonly string[], streams: Streams): Promise<number> {
  let args: ReturnType<typeof parse>;
  try {
    args = parse(argv);
  } catch (error) {
    streams.err(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    streams.out(USAGE);
    return 0;
  }
  if (args['list-fault-points']) {
    for (const point of FAULT_POINTS) streams.out(point);
    return 0;
  }
  const progress = streams.progress ?? NO_PROGRESS;
  const report =
    args.replay === undefined
      ? await campaign(args, progress).finally(() => progress.end())
      : await replay(args.replay);
  if (typeof report === 'string') {
    streams.err(`${report}\n${USAGE}`);
    return 2;
  }
  if (args.json) streams.out(JSON.stringify(report, null, 2));
  else for (const line of summary(report)) streams.out(line);
  return report.violations.length > 0 ? 1 : 0;
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    options: {
      schedules: { type: 'string' },
      seed: { type: 'string' },
      shrink: { type: 'string' },
      json: { type: 'boolean' },
      'list-fault-points': { type: 'boolean' },
      replay: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  }).values;
}

async function campaign(
  args: ReturnType<typeof parse>,
  progress: Progress,
): Promise<CampaignReport | string> {
  const schedules = wholeNumber(args.schedules ?? '1000');
  const seed = wholeNumber(args.seed ?? '1');
  const shrinkPerInvariant = wholeNumber(args.shrink ?? '3');
  if (schedules === undefined || seed === undefined || shrinkPerInvariant === undefined) {
    return '--schedules, --seed and --shrink take whole numbers';
  }
  return runCampaign({
    schedules,
    seed,
    shrinkPerInvariant,
    progress: (done, total) => progress.step(done, total),
  });
}

async function replay(source: string): Promise<CampaignReport | string> {
  let schedule: ReturnType<typeof parseSchedule>;
  try {
    schedule = parseSchedule(source.trim().startsWith('{') ? source : readFileSync(source, 'utf8'));
  } catch (error) {
    return `--replay: ${(error as Error).message}`;
  }
  const result = await runOne(schedule);
  const zero = () => Object.fromEntries(INVARIANTS.map((name) => [name, 0])) as Record<InvariantName, number>;
  const checked = zero();
  const counts = zero();
  for (const verdict of result.verdicts) {
    if (verdict.applicable) checked[verdict.invariant] += 1;
    if (verdict.problems.length > 0) counts[verdict.invariant] += 1;
  }
  return {
    schedules: 1,
    seed: schedule.seed,
    faultsInjected: result.faultsInjected,
    crashes: result.crashes,
    kafkaSchedules: isKafka(schedule) ? 1 : 0,
    violations: result.verdicts
      .filter((verdict) => verdict.problems.length > 0)
      .map((verdict) => ({
        invariant: verdict.invariant,
        seed: schedule.seed,
        index: 0,
        detail: verdict.problems[0],
        schedule,
      })),
    violationCounts: counts,
    invariantsChecked: checked,
  };
}

function summary(report: CampaignReport): string[] {
  const lines = [
    `${report.schedules} schedule(s) from seed ${report.seed} (${report.kafkaSchedules} reading a Kafka topic, the rest an SQS queue): ${report.faultsInjected} faults injected, ${report.crashes} crashes`,
    `checked: ${INVARIANTS.map((name) => `${name} ${report.invariantsChecked[name]}`).join(', ')}`,
  ];
  const failing = INVARIANTS.filter((name) => report.violationCounts[name] > 0);
  if (failing.length === 0) return [...lines, 'every invariant held'];
  lines.push(`violated: ${failing.map((name) => `${name} (${report.violationCounts[name]})`).join(', ')}`);
  for (const violation of report.violations) {
    lines.push(
      '',
      `${violation.invariant} - schedule seed ${violation.seed} (#${violation.index}): ${violation.detail}`,
    );
    for (const line of describeSchedule(violation.schedule)) lines.push(`  ${line}`);
    lines.push(`  replay: npm run -s campaign -- --replay '${JSON.stringify(violation.schedule)}'`);
  }
  return lines;
}

function wholeNumber(text: string): number | undefined {
  return /^\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : undefined;
}

if (require.main === module) {
  exitQuietlyOnBrokenPipe();
  main(process.argv.slice(2), {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    progress: progressLine(process.stderr, 'campaign: schedules run', () => Date.now()),
  }).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
      process.exitCode = 2;
    },
  );
}
