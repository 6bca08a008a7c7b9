/** The bench report as a readable table for a terminal. */
import { PATH_NAMES } from './calls/paths';
import { formatKafka } from './kafka/report';
import type { PipelineTimings } from './pipeline/timings';
import type { BenchReport } from './run-bench';
import { HEADROOM_PERCENT } from './scale/item-load';
import { round, type Summary } from './stats';

export function formatReport(report: BenchReport): string {
  return [
    calls(report),
    coldInit(report),
    perMessage(report),
    scale(report),
    report.kafka === undefined ? '' : formatKafka(report.kafka, table),
    outage(report),
    recovery(report),
    poison(report),
  ]
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
  const { callsPerMessage, dynamodbUnitsPerMessage: units, costPerMillionUsd, prices } = report;
  if (!callsPerMessage || !units || !costPerMillionUsd || !prices) return '';
  const rows = PATH_NAMES.map((name) => {
    const count = callsPerMessage[name];
    return [
      name,
      count.dynamodbWrites,
      count.dynamodbReads,
      units[name].write,
      units[name].read,
      count.s3,
      count.sqs,
      count.sfn,
      costPerMillionUsd[name],
    ];
  });
  return [
    `AWS calls per message (real consumer over the in-memory world) and USD per million messages ` +
      `(on-demand ${prices.region}, prices of ${prices.date}):`,
    table([
      ['path', 'ddb writes', 'ddb reads', 'write units', 'read units', 's3', 'sqs', 'sfn', 'USD/1M'],
      ...rows,
    ]),
    ...prices.assumptions.map((assumption) => `  - ${assumption}`),
  ].join('\n');
}

const spread = (summary: Summary, unit: string, digits = 1) =>
  `${round(summary.median, digits)} ${unit} (min ${round(summary.min, digits)}, max ${round(summary.max, digits)}, ${summary.runs} runs)`;

function coldInit(report: BenchReport): string {
  const { coldInit } = report;
  if (!coldInit) return '';
  return [
    `Cold init (import() of the entry in a fresh Node ${coldInit.node} process, as Lambda loads it; median):`,
    `  poison-quarantine  ${spread(coldInit.ms.poisonQuarantine, 'ms')}`,
    `  powertools         ${spread(coldInit.ms.powertools, 'ms')}`,
    `  ratio              ${coldInit.ratio} (goal: at most 0.9)`,
  ].join('\n');
}

function perMessage(report: BenchReport): string {
  const { perMessage } = report;
  if (!perMessage) return '';
  const { cpuMicros, atEqualConcurrency } = perMessage;
  return [
    `CPU per healthy message (instant AWS stand-in, ${perMessage.messagesPerRun} messages per run; median):`,
    `  poison-quarantine, one record at a time (default)  ${spread(cpuMicros.poisonQuarantine, 'µs', 0)}`,
    `  poison-quarantine, the batch at once               ${spread(cpuMicros.poisonQuarantineBatchAtOnce, 'µs', 0)}`,
    `  powertools, the batch at once (default)            ${spread(cpuMicros.powertools, 'µs', 0)}`,
    `  powertools, one record at a time                   ${spread(cpuMicros.powertoolsOneAtATime, 'µs', 0)}`,
    `  bare (parse only)                                  ${spread(cpuMicros.bare, 'µs', 1)}`,
    `  ratio to powertools, each by default ${perMessage.ratioToPowertools} (goal: at most 1.2), ` +
      `to bare ${perMessage.ratioToBare}`,
    `  ratio at equal concurrency: one at a time ${atEqualConcurrency.oneAtATime}, ` +
      `the batch at once ${atEqualConcurrency.batchAtOnce}`,
    `  stdout (log) bytes per healthy message, by default: poison-quarantine ${perMessage.stdoutBytes.poisonQuarantine}, ` +
      `powertools ${perMessage.stdoutBytes.powertools}`,
  ].join('\n');
}

function scale(report: BenchReport): string {
  const { scale } = report;
  if (!scale) return '';
  const rows = Object.entries(scale.items).map(([item, peak]) => [
    item,
    peak.peakWritesPerSecond,
    peak.peakReadsPerSecond,
    `${peak.percentOfLimits}%`,
    peak.percentOfLimits > HEADROOM_PERCENT ? `OVER ${HEADROOM_PERCENT}%` : 'ok',
  ]);
  return [
    'Scale model (1,000 environments, 10,000 msg/s, outage burst 10x; peak units per second on one item or partition):',
    table([['item', 'writes/s', 'reads/s', 'of 1,000 WCU / 3,000 RCU', 'headroom'], ...rows]),
    `  peak item writes/s ${scale.peakItemWritesPerSecond}, reads/s ${scale.peakItemReadsPerSecond}`,
  ].join('\n');
}

function timings(used: PipelineTimings): string {
  const scale = used.scale === 1 ? "the construct's defaults" : `the defaults scaled down ${used.scale}x`;
  return (
    `${scale}: consumer timeout ${used.consumerTimeoutSeconds} s, visibility ${used.visibilityTimeoutSeconds} s, ` +
    `cool-down ${used.breakerCooldownSeconds} s (at most ${used.breakerMaxCooldownSeconds} s), ` +
    `probe window ${used.breakerProbeSeconds} s`
  );
}

function outage(report: BenchReport): string {
  const { outage } = report;
  if (!outage) return '';
  const { native, poisonQuarantine: pq } = outage;
  return [
    `Outage, side by side (${outage.messages} messages; the outside system answers 503 for ${outage.outageSeconds} s, ` +
      `longer than ${outage.nativeMaxReceiveCount} x the visibility timeout; ${timings(outage.timings)}):`,
    table([
      ['consumer', 'dead-lettered', 'quarantined', 'charged', 'external requests', 'drain s'],
      [
        `native redrive (maxReceiveCount ${outage.nativeMaxReceiveCount})`,
        native.deadLettered,
        '-',
        '-',
        native.externalRequests,
        native.drainSeconds,
      ],
      [
        'poison-quarantine',
        pq.deadLettered,
        pq.quarantined,
        pq.charged,
        pq.externalRequests,
        pq.drainSeconds,
      ],
    ]),
    "  drain: seconds from the dependency's return to an empty source queue (0: it was empty already).",
  ].join('\n');
}

function recovery(report: BenchReport): string {
  const { recovery } = report;
  if (!recovery) return '';
  const at = (seconds: number | null) => (seconds === null ? 'not seen' : `${seconds} s`);
  const { timeline } = recovery;
  return [
    `Recovery (${recovery.messages} messages sent during an outage; the outside system back as the breaker trips; ` +
      `${timings(recovery.timings)}):`,
    `  backlog drained ${recovery.seconds} s after the return (goal: at most ${recovery.goalSeconds} s, ` +
      `cool-down + probe window + 10 s): ${recovery.seconds <= recovery.goalSeconds ? 'met' : 'MISSED'}`,
    `  after the return: mapping disabled ${at(timeline.mappingDisabled)}, probing from ` +
      `${at(timeline.probeStarted)}, drained ${at(timeline.drained)}`,
  ].join('\n');
}

function poison(report: BenchReport): string {
  const { poison } = report;
  if (!poison) return '';
  const { healthyPerSecond } = poison;
  return [
    `Poison cost (${poison.healthyMessages} healthy messages, and at the same time the same with one beside ` +
      `them that kills its worker on every attempt; ${timings(poison.timings)}):`,
    `  healthy throughput ${healthyPerSecond.withPoison} msg/s with the poison message, ` +
      `${healthyPerSecond.alone} alone: ratio ${poison.throughputRatio} (until the last healthy one completed; ` +
      `${poison.healthyHeldBack} of them shared a batch the poison message crashed and waited a visibility timeout)`,
    `  poison message quarantined (${poison.quarantineReason}) ${poison.quarantineSeconds} s after its first ` +
      `delivery, after ${poison.crashes} crashes`,
  ].join('\n');
}
