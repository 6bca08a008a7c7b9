/**
 * A proof that can fail (issues 19 and 37): each defect of planted-defects.ts, planted alone into
 * the real consumer, is reported by the campaign within 2,000 schedules of seed 1, and every
 * numbered rule of docs/behaviour.md has such a defect (or a reason it has none). The table of
 * rule, planted break, the first schedule that caught it and by which invariants is
 * docs/rule-breaks.md, generated here: the test fails while the committed one differs, so a
 * change that makes the campaign slower to see a break shows. PQ_WRITE_RULE_TABLE=1 rewrites it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runOne } from '../../sim/campaign/explore';
import { generateSchedule } from '../../sim/campaign/generate';
import { type InvariantName, OPEN_INVARIANTS } from '../../sim/campaign/invariants';
import {
  BREAKS,
  DEFECTS,
  type Defect,
  KAFKA_INVARIANT_BREAKS,
  KAFKA_LEASE,
  KAFKA_NO_BACKSTOP,
  KAFKA_ORDER,
  KAFKA_WHAT_STAYS,
  NOT_PLANTED,
  planted,
} from '../../sim/campaign/planted-defects';
import { scheduleSeed } from '../../sim/campaign/prng';

vi.mock('../../lambdas/core/delivery', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lambdas/core/delivery')>();
  const { plantedDelivery } = await import('../../sim/campaign/planted-defects');
  return {
    ...actual,
    decideDelivery: (...args: Parameters<typeof actual.decideDelivery>) =>
      plantedDelivery(actual.decideDelivery(...args), args[0], args[2]),
  };
});

vi.mock('../../lambdas/sources/kafka', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lambdas/sources/kafka')>();
  const { plantedKafkaSource } = await import('../../sim/campaign/planted-defects');
  return { ...actual, kafkaSource: plantedKafkaSource(actual.kafkaSource) };
});

vi.mock('../../lambdas/core/receive-limit', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lambdas/core/receive-limit')>();
  const { plantedLastFailedProbe, plantedLastReceive } = await import('../../sim/campaign/planted-defects');
  return {
    ...actual,
    isLastReceive: (...args: Parameters<typeof actual.isLastReceive>) =>
      plantedLastReceive(actual.isLastReceive(...args)),
    isLastFailedProbe: (...args: Parameters<typeof actual.isLastFailedProbe>) =>
      plantedLastFailedProbe(actual.isLastFailedProbe(...args)),
  };
});

vi.mock('../../lambdas/consumer/work-context', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lambdas/consumer/work-context')>();
  const { plantedWorkContext } = await import('../../sim/campaign/planted-defects');
  return { ...actual, workContext: plantedWorkContext(actual.workContext) };
});

vi.mock('../../lambdas/consumer/record-lifecycle', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lambdas/consumer/record-lifecycle')>();
  const { plantedDuplicate, plantedProcessRecord } = await import('../../sim/campaign/planted-defects');
  const { keyOfRecord } = await import('../../lambdas/consumer/begin-attempt');
  const keyFor = (...args: Parameters<typeof keyOfRecord>) => keyOfRecord(...args).key;
  return {
    ...actual,
    processRecord: plantedDuplicate(plantedProcessRecord(actual.processRecord, keyFor), keyFor),
  };
});

vi.mock('../../lambdas/core/config', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lambdas/core/config')>();
  const { plantedConfig } = await import('../../sim/campaign/planted-defects');
  return {
    ...actual,
    parseConfig: (...args: Parameters<typeof actual.parseConfig>) =>
      plantedConfig(actual.parseConfig(...args)),
  };
});

vi.mock('../../lambdas/consumer/quarantine-step', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lambdas/consumer/quarantine-step')>();
  const { plantedQuarantined } = await import('../../sim/campaign/planted-defects');
  return { ...actual, quarantined: plantedQuarantined(actual.quarantined) };
});

vi.mock('../../lambdas/core/suspects', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lambdas/core/suspects')>();
  const { isPlanted } = await import('../../sim/campaign/planted-defects');
  return {
    ...actual,
    planSuspects: (...args: Parameters<typeof actual.planSuspects>) => {
      const plan = actual.planSuspects(...args);
      return isPlanted('crash-suspects-run-together')
        ? { pool: [...plan.pool, ...plan.alone], alone: [], stagger: [] }
        : plan;
    },
  };
});

vi.mock('../../lambdas/core/outage', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lambdas/core/outage')>();
  const { isPlanted } = await import('../../sim/campaign/planted-defects');
  return {
    ...actual,
    evaluateOutage: (...args: Parameters<typeof actual.evaluateOutage>) => {
      const verdict = actual.evaluateOutage(...args);
      return isPlanted('outage-never-trips') ? { ...verdict, trip: false } : verdict;
    },
  };
});

vi.mock('../../lambdas/core/classify', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lambdas/core/classify')>();
  const { isPlanted } = await import('../../sim/campaign/planted-defects');
  return {
    ...actual,
    classifyWith: (...args: Parameters<typeof actual.classifyWith>) => {
      const errorClass = actual.classifyWith(...args);
      return isPlanted('permanent-taken-for-transient') && errorClass === 'permanent'
        ? 'transient'
        : errorClass;
    },
  };
});

vi.mock('../../lambdas/core/lease', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lambdas/core/lease')>();
  const { isPlanted } = await import('../../sim/campaign/planted-defects');
  return {
    ...actual,
    leaseRenewalMs: (leaseMs: number) =>
      isPlanted('kafka-lease-renewed-late') ? leaseMs * 100 : actual.leaseRenewalMs(leaseMs),
  };
});

vi.mock('../../lambdas/core/time-guard', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lambdas/core/time-guard')>();
  const { isPlanted } = await import('../../sim/campaign/planted-defects');
  return {
    ...actual,
    leavesTimeFor: (...args: Parameters<typeof actual.leavesTimeFor>) =>
      isPlanted('time-guard-off') || actual.leavesTimeFor(...args),
  };
});

vi.mock('../../lambdas/core/quarantine-share', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lambdas/core/quarantine-share')>();
  const { isPlanted } = await import('../../sim/campaign/planted-defects');
  return {
    ...actual,
    shouldStopQuarantine: (...args: Parameters<typeof actual.shouldStopQuarantine>) =>
      !isPlanted('share-never-stops') && actual.shouldStopQuarantine(...args),
  };
});

vi.mock('../../lambdas/core/operator', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lambdas/core/operator')>();
  const { isPlanted } = await import('../../sim/campaign/planted-defects');
  return {
    ...actual,
    decideReplay: (
      record: Parameters<typeof actual.decideReplay>[0],
      context: { readonly replayFrozen: boolean },
    ) =>
      actual.decideReplay(
        isPlanted('replay-without-a-cause') ? { ...record, cause: 'anything' } : record,
        context,
      ),
  };
});

const SEED = 1;
const BUDGET = 2_000;
const TABLE = path.join(__dirname, '..', '..', 'docs', 'rule-breaks.md');
/** Every numbered rule and sub-rule of docs/behaviour.md, then what its Kafka section words for a topic. */
const RULES = [
  '1',
  '2',
  '3',
  '4',
  '5',
  '6',
  '7',
  '8',
  '9',
  '10',
  '11a',
  '11b',
  '11c',
  '12',
  '13',
  KAFKA_ORDER,
  KAFKA_WHAT_STAYS,
  KAFKA_NO_BACKSTOP,
  KAFKA_LEASE,
];

interface Catch {
  readonly index: number;
  readonly invariants: readonly string[];
}

/**
 * The first schedule of seed 1 on which any invariant fails, and which fail there. An open
 * invariant (one the consumer still breaks, invariants.ts OPEN_INVARIANTS) fails without a
 * planted break: its failures catch nothing.
 */
async function firstCatch(budget: number, only?: InvariantName): Promise<Catch | undefined> {
  for (let index = 0; index < budget; index++) {
    const { verdicts } = await runOne(generateSchedule(scheduleSeed(SEED, index)));
    const invariants = verdicts
      .filter((verdict) => verdict.problems.length > 0 && !OPEN_INVARIANTS.has(verdict.invariant))
      .filter((verdict) => only === undefined || verdict.invariant === only)
      .map((verdict) => verdict.invariant);
    if (invariants.length > 0) return { index, invariants };
    // Schedules run on promises alone: let the event loop turn now and then.
    if (index % 100 === 99) await new Promise((resolve) => setImmediate(resolve));
  }
  return undefined;
}

type KafkaInvariant = keyof typeof KAFKA_INVARIANT_BREAKS;
const KAFKA_INVARIANTS = Object.keys(KAFKA_INVARIANT_BREAKS) as KafkaInvariant[];

function table(
  catches: ReadonlyMap<Defect, Catch | undefined>,
  kafkaCatches: ReadonlyMap<KafkaInvariant, Catch | undefined>,
): string {
  const rows = RULES.flatMap((rule) => {
    const breaks = DEFECTS.filter((defect) => BREAKS[defect].rule === rule);
    if (breaks.length === 0) return [[rule, `none: ${NOT_PLANTED[rule] ?? 'MISSING'}`, '', '']];
    return breaks.map((defect) => {
      const caught = catches.get(defect);
      const at = caught === undefined ? `not within ${BUDGET}` : `#${caught.index}`;
      const by = caught?.invariants.map((name) => `\`${name}\``).join(', ') ?? '';
      return [rule, `\`${defect}\`: ${BREAKS[defect].what}`, at, by];
    });
  });
  return [
    '# Every rule can fail the campaign',
    '',
    'Generated by test/campaign/planted-bugs.test.ts (`PQ_WRITE_RULE_TABLE=1 npx vitest run',
    'test/campaign/planted-bugs.test.ts` rewrites it; the test fails while this file differs). Each',
    'row plants one break of a rule of [behaviour.md](behaviour.md) into the real consumer',
    '(sim/campaign/planted-defects.ts) and runs the campaign of seed 1 (`npm run -s campaign --',
    '--seed 1 --schedules N`) until an invariant fails: the first schedule that caught it, and every',
    `invariant that failed there. The budget is ${BUDGET} schedules.`,
    '',
    ...markdownTable(
      ['rule', 'planted break', 'first schedule that caught it', 'invariants that failed there'],
      rows,
    ),
    '',
    '## Each invariant of a Kafka source can fail',
    '',
    'About one schedule in six not at scale reads a Kafka topic (sim/campaign/kafka-schedule.ts). Each',
    'invariant that judges only those (sim/campaign/kafka-invariants.ts) is run against a planted break',
    'of its own until it fails itself, whichever invariant caught the break first above: the first',
    'schedule of seed 1 on which it failed.',
    '',
    ...markdownTable(
      ['invariant', 'planted break', 'first schedule on which it failed'],
      [
        ...KAFKA_INVARIANTS.map((invariant) => {
          const caught = kafkaCatches.get(invariant);
          return [
            `\`${invariant}\``,
            `\`${KAFKA_INVARIANT_BREAKS[invariant]}\``,
            caught === undefined ? `not within ${BUDGET}` : `#${caught.index}`,
          ];
        }),
        ...[...OPEN_INVARIANTS].map((invariant) => [
          `\`${invariant}\``,
          'none: still open, it fails without one (sim/campaign/cases/)',
          '',
        ]),
      ],
    ),
    '',
  ].join('\n');
}

/** A Markdown table with its columns padded, as the project's formatter writes them. */
function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column].length)),
  );
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column])).join(' | ')} |`;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)];
}

describe(`the campaign catches a planted break of every rule within ${BUDGET} schedules`, () => {
  const catches = new Map<Defect, Catch | undefined>();
  const kafkaCatches = new Map<KafkaInvariant, Catch | undefined>();

  afterEach(() => {
    delete planted.defect;
  });

  for (const defect of DEFECTS) {
    it(`given ${defect} (rule ${BREAKS[defect].rule}), then an invariant fails within ${BUDGET} schedules`, async () => {
      // Prepare
      planted.defect = defect;

      // Act
      const caught = await firstCatch(BUDGET);
      catches.set(defect, caught);

      // Assess
      expect(caught, `${defect} went unseen for ${BUDGET} schedules`).toBeDefined();
    }, 300_000);
  }

  for (const invariant of KAFKA_INVARIANTS) {
    const defect = KAFKA_INVARIANT_BREAKS[invariant];
    it(`given ${defect}, then ${invariant} itself fails within ${BUDGET} schedules`, async () => {
      // Prepare
      planted.defect = defect;

      // Act
      const caught = await firstCatch(BUDGET, invariant);
      kafkaCatches.set(invariant, caught);

      // Assess
      expect(caught, `${invariant} never failed on ${defect} in ${BUDGET} schedules`).toBeDefined();
    }, 300_000);
  }

  it('given no defect planted, then the same schedules hold', async () => {
    // Act
    const last = Math.max(
      ...[...catches.values(), ...kafkaCatches.values()].map((caught) => caught?.index ?? 0),
    );
    const caught = await firstCatch(last + 1);

    // Assess
    expect(caught).toBeUndefined();
  }, 300_000);

  it('given every rule, then each has a planted break or a reason, and the table is current', () => {
    // Assess
    for (const rule of RULES) {
      const planted = DEFECTS.some((defect) => BREAKS[defect].rule === rule);
      expect(planted || NOT_PLANTED[rule] !== undefined, `rule ${rule}`).toBe(true);
    }
    const generated = table(catches, kafkaCatches);
    if (process.env.PQ_WRITE_RULE_TABLE === '1') writeFileSync(TABLE, generated);
    expect(readFileSync(TABLE, 'utf8')).toBe(generated);
  });
});
