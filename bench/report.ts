/** The bench report as a readable table for a terminal. */
import { PATH_NAMES } from './calls/paths';
import type { BenchReport } from './run-bench';
import { round, type Summary } from './stats';

export function formatReport(report: BenchReport): string {
  return [calls(report), coldInit(report), perMessage(report), scale(report), notMeasured(report)]
    .filter((section) => section !== '')
    .join('\n\n');
}

function table(rows: readonly (readonly (string | number)[])[]): string {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => String(row[column]).length)));
  return rows
    .map((row) => row.map((cell, column) => String(cell).padEnd(widths[column])).join('  '))
    .join('\n');
}

function calls(report: BenchReport): string {
  const { callsPerMessage, costPerMillionUsd, prices } = report;
  if (!callsPerMessage || !costPerMillionUsd || !prices) return '';
  const rows = PATH_NAMES.map((name) => {
    const count = callsPerMessage[name];
    return [
      name,
      count.dynamodbWrites,
      count.dynamodbReads,
      count.s3,
      count.sqs,
      count.sfn,
      costPerMillionUsd[name],
    ];
  });
  return [
    `AWS calls per message (real consumer over the in-memory world) and USD per million messages ` +
      `(on-demand ${prices.region}, prices of ${prices.date}):`,
    table([['path', 'ddb writes', 'ddb reads', 's3', 'sqs', 'sfn', 'USD/1M'], ...rows]),
    ...prices.assumptions.map((assumption) => `  - ${assumption}`),
  ].join('\n');
}

const spread = (summary: Summary, unit: string, digits = 1) =>
  `${round(summary.median, digits)} ${unit} (min ${round(summary.min, digits)}, max ${round(summary.max, digits)}, ${summary.runs} runs)`;

function coldInit(report: BenchReport): string {
  const { coldInit } = report;
  if (!coldInit) return '';
  return [
    'Cold init (module load + init in a fresh Node process, same esbuild options; median):',
    `  poison-quarantine  ${spread(coldInit.ms.poisonQuarantine, 'ms')}`,
    `  powertools         ${spread(coldInit.ms.powertools, 'ms')}`,
    `  ratio              ${coldInit.ratio} (goal: at most 1.0)`,
  ].join('\n');
}

function perMessage(report: BenchReport): string {
  const { perMessage } = report;
  if (!perMessage) return '';
  const { cpuMicros } = perMessage;
  return [
    `CPU per healthy message (instant AWS stand-in, ${perMessage.messagesPerRun} messages per run; median):`,
    `  poison-quarantine  ${spread(cpuMicros.poisonQuarantine, 'µs', 0)}`,
    `  powertools         ${spread(cpuMicros.powertools, 'µs', 0)}`,
    `  bare (parse only)  ${spread(cpuMicros.bare, 'µs', 1)}`,
    `  ratio to powertools ${perMessage.ratioToPowertools} (goal: at most 1.2), to bare ${perMessage.ratioToBare}`,
  ].join('\n');
}

function scale(report: BenchReport): string {
  const { scale } = report;
  if (!scale) return '';
  const rows = Object.entries(scale.items).map(([item, peak]) => [
    item,
    peak.peakWritesPerSecond,
    peak.peakReadsPerSecond,
    peak.overLimit ? 'OVER' : 'ok',
  ]);
  return [
    'Scale model (1,000 environments, 10,000 msg/s, outage burst 10x; peak units per second on one item or partition):',
    table([['item', 'writes/s', 'reads/s', 'vs 1,000 WCU / 3,000 RCU'], ...rows]),
    `  peak item writes/s ${scale.peakItemWritesPerSecond}, reads/s ${scale.peakItemReadsPerSecond}`,
  ].join('\n');
}

function notMeasured(report: BenchReport): string {
  return `Not measured here: ${report.notMeasured.join(', ')}.`;
}
