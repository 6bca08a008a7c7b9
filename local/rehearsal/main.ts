/**
 * `npm run rehearsal [-- --json] [-- --scenario FILE] [-- --timeout-scale N]`: runs the seed's
 * rehearsal and the operations around it (local/rehearsal/default-scenarios.ts), or the given
 * scenarios, on the embedded local AWS, each scenario on its own pipeline, all at once, and
 * reports expected vs observed. Progress goes to stderr; the report (or the one JSON document)
 * to stdout. Exit code 0 only when every scenario passes; 1 when one fails; 2 on bad usage;
 * 130 when interrupted. Everything started is stopped, on Ctrl-C too.
 */

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { exitQuietlyOnBrokenPipe } from '../../cli/broken-pipe';
import { LOCAL_TARGETS, type LocalTarget } from '../local-pipeline';
import { DEFAULT_SCENARIOS } from './default-scenarios';
import { KAFKA_SCENARIOS } from './kafka-scenarios';
import { jsonReport, passed, ran, type ScenarioResult, textReport } from './report';
import { runScenarios } from './run-scenario';
import {
  parseScenarios,
  type Scenario,
  ScenarioError,
  scaleTimeouts,
  TIMEOUT_SCALE_OPTION,
} from './scenario';

/** The most `--timeout-scale` gives: past it a scenario's waits (6x the timeout per crash) are hours. */
const MAX_TIMEOUT_SCALE = 10;

const USAGE = `Usage: npm run rehearsal -- [--json] [--scenario FILE] [--timeout-scale N] [--target T] [--source S] [--verbose]

Runs rehearsal scenarios on the embedded local AWS (moto + the demo stack + the local runner),
each on its own pipeline, concurrently, and reports expected vs observed figures.

  --scenario FILE  a JSON file with one scenario or an array of them (default: the seed's
                   rehearsal "seed", its variant "seed-variant", a dependency "outage" that
                   pauses and resumes consumption, and "seed-variant-verified", the variant
                   answered by an operator with pq verify). Its JSON Schema,
                   local/rehearsal/scenario.schema.json, describes every field (messages or
                   raw bodies, setup, an outage, faults injected into the consumer's own AWS
                   calls, operator steps, expected figures); name it in the file's "$schema"
                   and an editor completes and checks it
  --timeout-scale N
                   multiply every scenario's consumer timeout by N (1 to ${MAX_TIMEOUT_SCALE}, e.g. 2): for a
                   machine so slow that invocations are killed at their deadline (the report says
                   so); each crash then waits N times longer for its message to come back
  --target T       where each pipeline is deployed: moto (the default: the embedded local AWS)
                   or localstack (the embedded LocalStack: the stack deployed by its own
                   CloudFormation, the consumer run by the project's runner; docs/localstack.md)
  --source S       what the consumer reads: sqs (the default: the demo stack's queue) or kafka (a
                   topic on an embedded Apache Kafka broker, read through the construct's Kafka
                   source; without --scenario: the seed, its variant, the outage over three
                   partitions and "incident", one corrupted record on one of three partitions);
                   moto only
  --json           print exactly one JSON document on stdout ({"scenarios": [...]})
  --verbose        copy the consumer's own log lines to stderr
  --help           this text

Exit code: 0 every scenario passed, 1 a scenario failed, 2 bad usage, 130 interrupted.
`;

class UsageError extends Error {}

interface Args {
  readonly json: boolean;
  readonly verbose: boolean;
  readonly help: boolean;
  readonly scenarioFile?: string;
  readonly timeoutScale: number;
  readonly target: LocalTarget;
  readonly source: 'sqs' | 'kafka';
}

function readArgs(argv: readonly string[]): Args {
  try {
    const { values } = parseArgs({
      args: [...argv],
      options: {
        json: { type: 'boolean', default: false },
        verbose: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
        scenario: { type: 'string' },
        [TIMEOUT_SCALE_OPTION]: { type: 'string', default: '1' },
        target: { type: 'string', default: 'moto' },
        source: { type: 'string', default: 'sqs' },
      },
      strict: true,
      allowPositionals: false,
    });
    return {
      json: values.json,
      verbose: values.verbose,
      help: values.help,
      scenarioFile: values.scenario,
      timeoutScale: timeoutScale(values[TIMEOUT_SCALE_OPTION]),
      target: targetOf(values.target),
      source: sourceOf(values.source, values.target),
    };
  } catch (error) {
    throw error instanceof UsageError ? error : new UsageError((error as Error).message);
  }
}

function targetOf(given: string): LocalTarget {
  const target = LOCAL_TARGETS.find((candidate) => candidate === given);
  if (target === undefined)
    throw new UsageError(`--target must be ${LOCAL_TARGETS.join(' or ')} (given "${given}")`);
  return target;
}

function sourceOf(given: string, target: string): 'sqs' | 'kafka' {
  if (given !== 'sqs' && given !== 'kafka')
    throw new UsageError(`--source must be sqs or kafka (given "${given}")`);
  if (given === 'kafka' && target !== 'moto')
    throw new UsageError(`--source kafka runs on the embedded local AWS only (given --target ${target})`);
  return given;
}

/** `--timeout-scale`'s factor: a number, so 1.5 gives half as much again. */
function timeoutScale(given: string): number {
  const factor = Number(given);
  if (given.trim() === '' || !(factor >= 1 && factor <= MAX_TIMEOUT_SCALE)) {
    throw new UsageError(
      `--${TIMEOUT_SCALE_OPTION} must be a number from 1 to ${MAX_TIMEOUT_SCALE} (given "${given}")`,
    );
  }
  return factor;
}

function loadScenarios(file: string | undefined, source: 'sqs' | 'kafka'): readonly Scenario[] {
  if (file === undefined) return source === 'kafka' ? KAFKA_SCENARIOS : DEFAULT_SCENARIOS;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--scenario ${file}: cannot read it (${(error as Error).message})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--scenario ${file}: not JSON (${(error as Error).message})`);
  }
  return parseScenarios(parsed, file);
}

async function main(argv: readonly string[]): Promise<number> {
  exitQuietlyOnBrokenPipe();
  const args = readArgs(argv);
  if (args.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const scenarios = loadScenarios(args.scenarioFile, args.source).map((scenario) =>
    scaleTimeouts(scenario, args.timeoutScale),
  );
  const progress = (line: string) => process.stderr.write(`${line}\n`);
  const interrupt = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupt.signal.aborted) return;
    progress(`${signal}: stopping every pipeline this rehearsal started...`);
    interrupt.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const started = Date.now();
  let results: ScenarioResult[];
  try {
    const outcomes = await runScenarios(scenarios, {
      progress,
      signal: interrupt.signal,
      forwardLogs: args.verbose,
      target: args.target,
      source: args.source,
    });
    results = outcomes.map((outcome) =>
      outcome.run
        ? ran(outcome.run)
        : { kind: 'failed', scenario: outcome.scenario, error: outcome.error.stack ?? outcome.error.message },
    );
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  if (interrupt.signal.aborted) {
    progress('interrupted: everything started was stopped; no report.');
    return 130;
  }
  const wallMs = Date.now() - started;
  process.stdout.write(args.json ? jsonReport(results, wallMs) : textReport(results, wallMs));
  return results.every(passed) ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: Error) => {
    if (error instanceof UsageError || error instanceof ScenarioError) {
      process.stderr.write(`${error.message}\n\n${error instanceof UsageError ? USAGE : ''}`);
      process.exitCode = 2;
    } else {
      process.stderr.write(`rehearsal failed: ${error.stack ?? error.message}\n`);
      process.exitCode = 1;
    }
  },
);
