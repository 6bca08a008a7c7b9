/**
 * Scenario files as users write them: checked against the one zod schema their TypeScript types
 * derive from, every problem named with the file, its path in the file and the value given; the
 * JSON Schema for editors, committed and current (`PQ_WRITE_SCENARIO_SCHEMA=1` rewrites it); and
 * the fields users asked for (raw bodies, idempotency keys, the trial's and the breaker's
 * settings, a floor for every count, the isolation trial in the report) as the rehearsal uses them.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { QUARANTINE_REASONS } from '../../lambdas/core/types';
import type { LedgerEntry } from '../../lambdas/ports/ledger';
import type { ConsumerLog, RecordLine } from '../../local/consumer-log';
import { DEFAULT_SCENARIOS, SEED, SEED_VARIANT_VERIFIED } from '../../local/rehearsal/default-scenarios';
import { IsolationWatch } from '../../local/rehearsal/isolation-watch';
import { type Observed, observe } from '../../local/rehearsal/observe';
import type { IsolationView, PipelineProbe } from '../../local/rehearsal/pipeline-probe';
import { jsonReport, ran, textReport } from '../../local/rehearsal/report';
import type { ScenarioRun } from '../../local/rehearsal/run-scenario';
import {
  ledgerKeyOf,
  messageBody,
  parseScenarios,
  type Scenario,
  type ScenarioMessage,
  scaleTimeouts,
} from '../../local/rehearsal/scenario';
import { SCENARIO_JSON_SCHEMA_FILE, scenarioJsonSchema } from '../../local/rehearsal/scenario-schema';

const root = path.join(__dirname, '..', '..');
const seed = () => JSON.parse(JSON.stringify(SEED)) as Record<string, unknown>;

/** The problems of a scenario file, one a line; '' when it is valid. */
function problems(file: unknown): string {
  try {
    parseScenarios(file, 'mine.json');
  } catch (error) {
    return (error as Error).message;
  }
  return '';
}

const withMessages = (messages: unknown, more: Record<string, unknown> = {}) => ({
  ...seed(),
  messages,
  expected: { ...(SEED.expected as object), noHumanNeededFor: [] },
  ...more,
});

describe('the JSON Schema for editors', () => {
  it('is the committed one, generated from the zod schema', () => {
    // Prepare
    const generated = scenarioJsonSchema();
    const committed = JSON.parse(readFileSync(SCENARIO_JSON_SCHEMA_FILE, 'utf8'));
    if (process.env.PQ_WRITE_SCENARIO_SCHEMA === '1') {
      writeFileSync(SCENARIO_JSON_SCHEMA_FILE, JSON.stringify(generated));
      // Written as biome formats JSON, so `npm run lint` stays quiet.
      execFileSync(path.join(root, 'node_modules', '.bin', 'biome'), [
        'format',
        '--write',
        SCENARIO_JSON_SCHEMA_FILE,
      ]);
      return;
    }
    // Assess
    expect(committed).toStrictEqual(generated);
  });

  it('describes one scenario or a non-empty array of them, every field with its type', () => {
    const schema = scenarioJsonSchema() as {
      anyOf: unknown[];
      definitions: { scenario: { properties: Record<string, unknown>; required: string[] } };
    };
    expect(schema.anyOf).toStrictEqual([
      { $ref: '#/definitions/scenario' },
      { minItems: 1, type: 'array', items: { $ref: '#/definitions/scenario' } },
    ]);
    expect(schema.definitions.scenario.required).toStrictEqual([
      'name',
      'messages',
      'limit',
      'batchSize',
      'inFlight',
      'environments',
      'consumerTimeoutSeconds',
      'expected',
    ]);
    expect(Object.keys(schema.definitions.scenario.properties)).toEqual(
      expect.arrayContaining([
        '$schema',
        'isolationTrialMessages',
        'breakerMaxCooldownSeconds',
        'outageWindowSeconds',
      ]),
    );
  });
});

describe('a scenario file', () => {
  it('given every default scenario as a file holds it, then it reads back exactly', () => {
    const file = JSON.parse(JSON.stringify(DEFAULT_SCENARIOS));
    expect(parseScenarios(file, 'defaults.json')).toStrictEqual(file);
  });

  it('given a $schema for the editor, then it is accepted', () => {
    expect(problems({ $schema: './local/rehearsal/scenario.schema.json', ...seed() })).toBe('');
  });

  it('given bad fields, then one error naming the file, each path in it, what is wrong and the value given', () => {
    // Prepare
    const file = [
      seed(),
      {
        ...seed(),
        name: 'two',
        limit: 0,
        messages: [{ id: 'M1', behaviour: 'explode' }, ...(SEED.messages.slice(1) as unknown[])],
        expected: { ...(SEED.expected as object), completed: '4', quarantineReasons: { melted: 1 } },
        colour: 'red',
      },
    ];
    // Act
    const message = problems(file);
    // Assess
    expect(message).toBe(
      [
        'mine.json: invalid scenario:',
        '  - [1].messages[0].behaviour must be one of succeed, succeed-with-external, slow, crash-in-parser, crash-before-external, crash-after-external, throw-transient, throw-permanent, throw-unknown, hang, external-then-keyed-then-crash (given "explode")',
        '  - [1].limit must be a whole number from 1 to 100 (given 0)',
        '  - [1].expected.completed must be a whole number from 0 to 100000 or {"atLeast": n} (given "4")',
        `  - [1].expected.quarantineReasons.melted is not a quarantine reason (known: ${QUARANTINE_REASONS.join(', ')})`,
        '  - [1].colour is not a known field (known: $schema, name, messages, limit, batchSize, inFlight, environments, consumerTimeoutSeconds, timeoutSeconds, messageKey, isolationTrialMessages, outageFailureThreshold, outageWindowSeconds, breakerCooldownSeconds, breakerMaxCooldownSeconds, breakerProbeWindowSeconds, outage, faults, operator, notes, expected)',
      ].join('\n'),
    );
  });

  it("given a value of the wrong kind in any field, then a sentence of ours, never the schema library's", () => {
    // Prepare: every field of the scenario, a message, a fault, an operator step and the figures, given `true`.
    const base = {
      ...JSON.parse(JSON.stringify(SEED_VARIANT_VERIFIED)),
      faults: [{ at: 'ledger.start', error: 'throttle' }],
      outage: { startAfterMs: 0, durationMs: 1 },
    };
    const variants: Record<string, unknown>[] = [
      ...Object.keys(base).map((field) => ({ ...base, [field]: true })),
      ...['id', 'behaviour', 'times', 'idempotencyKey', 'body', 'bodyBase64'].map((field) => ({
        ...base,
        messages: [{ ...base.messages[0], [field]: true }],
      })),
      ...['at', 'error', 'times', 'message'].map((field) => ({
        ...base,
        faults: [{ ...base.faults[0], [field]: true }],
      })),
      ...['verify', 'decision', 'reason'].map((field) => ({
        ...base,
        operator: [{ ...base.operator[0], [field]: true }],
      })),
      ...Object.keys(base.expected).map((field) => ({
        ...base,
        expected: { ...base.expected, [field]: true },
      })),
      ...['startAfterMs', 'durationMs', 'until'].map((field) => ({
        ...base,
        outage: { ...base.outage, [field]: true },
      })),
      ...['quarantineReasons', 'externalRequests'].map((field) => ({
        ...base,
        expected: { ...base.expected, [field]: { M3: true } },
      })),
    ];
    // Act
    const lines = variants.flatMap((variant) => problems(variant).split('\n').slice(1));
    // Assess
    expect(lines.length).toBeGreaterThanOrEqual(variants.length);
    expect(
      lines.filter(
        (line) => !/^ {2}- [\w$.[\]]+ \S/.test(line) || /Invalid input|expected \w+, received/.test(line),
      ),
    ).toStrictEqual([]);
  });
});

describe("a scenario's messages", () => {
  const raw = (message: Record<string, unknown>) => ({ id: 'R1', ...message }) as ScenarioMessage;

  it('given a demo message, then its body is the JSON order the demo worker reads, its idempotency key with it', () => {
    expect(messageBody({ id: 'M3', behaviour: 'crash-after-external', times: 1 })).toBe(
      '{"id":"M3","behaviour":"crash-after-external","times":1}',
    );
    expect(messageBody({ id: 'K1', behaviour: 'succeed-with-external', idempotencyKey: 'order-7' })).toBe(
      '{"id":"K1","behaviour":"succeed-with-external","idempotencyKey":"order-7"}',
    );
  });

  it('given a raw body, as text or as base64, then it is sent exactly', () => {
    expect(messageBody(raw({ body: 'not json \u00e9\t' }))).toBe('not json \u00e9\t');
    expect(messageBody(raw({ bodyBase64: Buffer.from('{"id":"x"}\r\n').toString('base64') }))).toBe(
      '{"id":"x"}\r\n',
    );
  });

  it('given raw bodies, then the ledger key is what the consumer computes from them', () => {
    const byId = { messageKey: 'id' } as Scenario;
    expect(ledgerKeyOf(byId, raw({ body: '{"id":"order-1"}' }), 'sqs-1')).toBe('order-1');
    expect(ledgerKeyOf(byId, raw({ body: 'plain text' }), 'sqs-2')).toBe('sqs-2');
    expect(ledgerKeyOf(byId, { id: 'M1', behaviour: 'succeed' }, 'sqs-3')).toBe('M1');
    expect(ledgerKeyOf({} as Scenario, raw({ body: '{"id":"order-1"}' }), 'sqs-4')).toBe('sqs-4');
  });

  it('given raw bodies and keys, then a valid file reads them', () => {
    const messages = [
      { id: 'T1', body: 'hello' },
      { id: 'B1', bodyBase64: Buffer.from('{"behaviour":"throw-permanent"}').toString('base64') },
      { id: 'K1', behaviour: 'succeed-with-external', idempotencyKey: 'order-7' },
    ];
    expect(problems(withMessages(messages))).toBe('');
  });

  it('given a body SQS would refuse or alter, or a body beside a behaviour, then each is named', () => {
    // Prepare
    const messages = [
      { id: 'A', behaviour: 'succeed', body: 'x' },
      { id: 'B' },
      { id: 'C', body: 'x', times: 2 },
      { id: 'K', behaviour: 'succeed', idempotencyKey: 'k' },
      { id: 'D', bodyBase64: Buffer.from([0xff, 0xfe]).toString('base64') },
      { id: 'E', bodyBase64: 'not base64!' },
      { id: 'F', body: 'bell \u0007' },
      { id: 'G', body: 'x'.repeat(1_048_577) },
    ];
    // Act
    const message = problems(withMessages(messages));
    // Assess
    expect(message.split('\n').slice(1)).toStrictEqual([
      '  - messages[0] gives behaviour and body: give one (a raw body says itself what the worker does)',
      '  - messages[1] needs one of behaviour, body, bodyBase64',
      '  - messages[2].times goes with behaviour, not with a raw body',
      '  - messages[3].idempotencyKey goes with succeed-with-external or crash-after-external: succeed makes no call it would key',
      '  - messages[4].bodyBase64 must decode to UTF-8: an SQS body is text, and other bytes would not arrive as they are',
      '  - messages[5].bodyBase64 must be base64 (given "not base64!")',
      '  - messages[6].body holds a character SQS refuses in a body (control characters but tab, LF, CR)',
      "  - messages[7].body is 1048577 bytes: more than the queue's 1048576",
    ]);
  });

  it('given two messages on one ledger item (the body\'s "id" as the key), then the second is named', () => {
    const messages = [
      { id: 'A', body: '{"id":"B"}' },
      { id: 'B', behaviour: 'succeed' },
    ];
    expect(problems(withMessages(messages, { messageKey: 'id' }))).toContain(
      'messages[1] has the message key of messages[0] ("B"): one ledger item cannot be judged as two messages',
    );
  });
});

describe("a scenario's settings", () => {
  it('given the isolation trial, the outage detection and every breaker timing, then they are read', () => {
    const settings = {
      isolationTrialMessages: 5,
      outageFailureThreshold: 2,
      outageWindowSeconds: 10,
      breakerCooldownSeconds: 5,
      breakerMaxCooldownSeconds: 40,
      breakerProbeWindowSeconds: 3,
    };
    const [scenario] = parseScenarios({ ...seed(), ...settings }, 'mine.json');
    expect(scenario).toMatchObject(settings);
  });

  it('given a cool-down cap below the cool-down (or its default), then it is named', () => {
    expect(problems({ ...seed(), breakerCooldownSeconds: 10, breakerMaxCooldownSeconds: 5 })).toContain(
      'breakerMaxCooldownSeconds must be at least breakerCooldownSeconds (given 5, breakerCooldownSeconds 10)',
    );
    expect(problems({ ...seed(), breakerMaxCooldownSeconds: 30 })).toContain(
      '(given 30, breakerCooldownSeconds 60)',
    );
    expect(problems({ ...seed(), isolationTrialMessages: 0, outageFailureThreshold: 1 })).toContain(
      'isolationTrialMessages must be a whole number from 1 to 10000 (given 0)',
    );
  });

  it('given an outage with both or neither of durationMs and until, then it is named', () => {
    const exactlyOne =
      'outage must give exactly one of `durationMs` (a fixed outage) and `until` (an outage that ends on an event)';
    expect(problems({ ...seed(), outage: { startAfterMs: 0 } })).toContain(exactlyOne);
    expect(
      problems({ ...seed(), outage: { startAfterMs: 0, durationMs: 5, until: 'mapping-disabled' } }),
    ).toContain(exactlyOne);
    expect(problems({ ...seed(), outage: { startAfterMs: 0, until: 'mapping-disabled' } })).toBe('');
  });

  it('defect 16: given --timeout-scale 2, then every deadline is doubled, and a settle timeout given too', () => {
    // Act
    const scaled = scaleTimeouts({ ...SEED, timeoutSeconds: 100 }, 2);
    // Assess
    expect(scaled).toStrictEqual({
      ...SEED,
      consumerTimeoutSeconds: 2 * SEED.consumerTimeoutSeconds,
      timeoutSeconds: 200,
    });
  });

  it('given a floor for every count, then each is read', () => {
    const floor = { atLeast: 1 };
    const expected = {
      attemptsStarted: floor,
      completed: floor,
      quarantined: floor,
      leftInQueue: floor,
      quarantineReasons: { 'crash-limit': floor },
      externalRequests: { M3: floor },
      charged: floor,
      pauses: floor,
      quarantineStatuses: { open: floor },
      replays: { M3: floor },
      executions: { SUCCEEDED: floor },
    };
    const file = {
      ...JSON.parse(JSON.stringify(SEED_VARIANT_VERIFIED)),
      expected: { ...expected, afterOperator: expected },
    };
    expect(problems(file)).toBe('');
  });
});

describe('the judge and the report', () => {
  const observed: Observed = {
    attemptsStarted: 7,
    completed: 5,
    quarantined: 1,
    leftInQueue: 0,
    quarantineReasons: { 'crash-limit': 1 },
    externalRequests: {},
    callsPerHealthyMessage: null,
    roundTripsBeforeWork: null,
    healthyMessages: [],
    slowHealthyMessages: [],
    completedWithoutPerson: ['M1'],
    quarantine: [],
    messages: [],
    backstop: 0,
  };
  const runOf = (scenario: Scenario, seen: Observed = observed, killedAtDeadline = 0): ScenarioRun => ({
    scenario,
    observed: seen,
    settlement: {
      settled: true,
      timeoutSeconds: 60,
      unsettled: [],
      queue: { visible: 0, inFlight: 0, delayed: 0, total: 0 },
    },
    startupMs: 1000,
    runMs: 2000,
    killedAtDeadline,
    slowestAnsweredMs: 1234,
  });

  it('given floors, then a figure at or above passes and one below fails', () => {
    // Prepare
    const scenario = {
      ...SEED,
      expected: {
        ...SEED.expected,
        completed: { atLeast: 5 },
        quarantined: { atLeast: 2 },
        noHumanNeededFor: [],
      },
    };
    // Act
    const result = ran(runOf(scenario));
    // Assess
    const checks = result.kind === 'ran' ? result.verdict.checks : [];
    expect(checks.filter((check) => ['completed', 'quarantined'].includes(check.figure))).toStrictEqual([
      { figure: 'completed', expected: '>= 5', observed: '5', pass: true },
      { figure: 'quarantined', expected: '>= 2', observed: '1', pass: false },
    ]);
  });

  it("defect 14: given receive counts and the backstop's depth, then the report shows them and judges an expected backstop", () => {
    // Prepare: M3 quarantined at its fourth receive, and one message in the dead-letter queue.
    const seen: Observed = {
      ...observed,
      messages: [
        { id: 'M1', messageId: 'sqs-1', state: 'completed', attempts: 1, charged: 0, receives: 1 },
        { id: 'M3', messageId: 'sqs-3', state: 'quarantined', attempts: 3, charged: 3, receives: 4 },
      ],
      backstop: 1,
    };
    const scenario = { ...SEED, expected: { ...SEED.expected, backstop: 0 } };
    // Act
    const results = [ran(runOf(scenario, seen))];
    // Assess
    const checks = results[0].kind === 'ran' ? results[0].verdict.checks : [];
    expect(checks.filter((check) => check.figure === 'in the backstop')).toStrictEqual([
      { figure: 'in the backstop', expected: '0', observed: '1', pass: false },
    ]);
    const report = textReport(results, 3000);
    expect(report).toContain(
      '  messages:     M1 completed (1 attempt, 0 charged, 1 receive); M3 quarantined (3 attempts, 3 charged, 4 receives)\n',
    );
    expect(report).toContain(
      "  backstop:     1 message (the source queue's dead-letter queue: visible, in flight or delayed)\n",
    );
    const json = JSON.parse(jsonReport(results, 3000)).scenarios[0].observed;
    expect(json.backstop).toBe(1);
    expect(json.messages.map((message: { receives: number }) => message.receives)).toStrictEqual([1, 4]);
  });

  it('defect 14: given a scenario that expects no backstop figure, then none is judged, yet the report shows it', () => {
    // Act
    const results = [ran(runOf(SEED))];
    // Assess
    const checks = results[0].kind === 'ran' ? results[0].verdict.checks : [];
    expect(checks.map((check) => check.figure)).not.toContain('in the backstop');
    expect(textReport(results, 3000)).toContain(
      "  backstop:     0 messages (the source queue's dead-letter queue",
    );
  });

  it('defect 14: given an isolation trial, then only messages completed before it began are measured against the floor', async () => {
    // Prepare: M1 completed before the trial began, M2 during it, counting the trial down (a write).
    const completed = (messageId: string, at: number, dynamodbWrites: number): RecordLine => ({
      messageId,
      at,
      outcome: { kind: 'completed' },
      calls: { dynamodbWrites, dynamodbReads: 0, s3: 0, sqs: 0, sfn: 0 },
    });
    const records = [completed('sqs-1', 1_000, 2), completed('sqs-2', 3_000, 3)];
    const log = {
      records,
      recordsOf: (id: string) => records.filter((line) => line.messageId === id),
      receivesOf: () => 1,
    } as unknown as ConsumerLog;
    const item = { state: 'completed', attempts: 1, charged: 0, generation: 0 } as LedgerEntry;
    const empty = { visible: 0, inFlight: 0, delayed: 0, total: 0 };
    const probe = {
      ledgerItems: async (keys: string[]) => new Map(keys.map((key) => [key, item])),
      quarantineRecords: async () => [],
      queueDepth: async () => empty,
      backstopDepth: async () => empty,
    } as unknown as PipelineProbe;
    const scenario: Scenario = {
      ...SEED,
      messages: [
        { id: 'M1', behaviour: 'succeed' },
        { id: 'M2', behaviour: 'succeed' },
      ],
    };
    // Act
    const seen = await observe({
      scenario,
      probe,
      log,
      labels: new Map([
        ['sqs-1', 'M1'],
        ['sqs-2', 'M2'],
      ]),
      sent: new Map([
        ['M1', 'sqs-1'],
        ['M2', 'sqs-2'],
      ]),
      outside: {},
      firstTrialAt: 2_000,
    });
    // Assess
    expect(seen.healthyMessages).toStrictEqual(['M1']);
    expect(seen.callsPerHealthyMessage?.dynamodbWrites).toBe(2);
  });

  it('given isolation trials seen, then the report shows when each started, restarted and ended', async () => {
    // Prepare: the isolation item as the control table holds it, read when the watch reads it.
    const sent = 1_000_000;
    let clock = sent;
    let item: IsolationView | undefined;
    const watch = IsolationWatch.start({ inFlight: 4 }, { isolation: async () => item }, () => clock);
    await watch?.stop();
    const look = async (at: number, next: IsolationView | undefined) => {
      clock = sent + at;
      item = next;
      return watch?.trialsSince(sent);
    };
    // Act
    await look(500, undefined);
    await look(1_300, { active: true, startedAt: sent + 1_200, reason: 'unattributable-crash' });
    await look(2_100, { active: true, startedAt: sent + 2_000, reason: 'unattributable-crash' });
    await look(4_100, { active: false, startedAt: sent + 2_000, reason: 'unattributable-crash' });
    const trials = await look(6_100, {
      active: false,
      startedAt: sent + 6_000,
      reason: 'unattributable-crash',
    });
    // Assess
    expect(trials).toStrictEqual([
      { startedAt: 1_200, reason: 'unattributable-crash', restartedAt: [2_000], endedBy: 4_100 },
      { startedAt: 6_000, reason: 'unattributable-crash', restartedAt: [], endedBy: 6_100 },
    ]);
    const results = [ran(runOf(SEED, { ...observed, isolation: trials }))];
    expect(JSON.parse(jsonReport(results, 3000)).scenarios[0].observed.isolation).toStrictEqual(trials);
    const report = textReport(results, 3000);
    expect(report).toContain(
      [
        '  isolation trials (ms from the first send; ends as first seen, reading the control table every 100 ms):',
        '    started +1200 ms (unattributable-crash), restarted +2000 ms, ended by +4100 ms',
        '    started +6000 ms (unattributable-crash), ended by +6100 ms',
      ].join('\n'),
    );
  });

  it('given a scenario with one record in flight per worker, then no trial is watched: none can start', () => {
    expect(IsolationWatch.start({ inFlight: 1 }, { isolation: async () => undefined })).toBeUndefined();
  });

  it('given raw bodies, keys and settings, then the setup line says them', () => {
    const scenario: Scenario = {
      ...SEED,
      messages: [
        { id: 'T1', body: 'hello' },
        { id: 'K1', behaviour: 'succeed-with-external', idempotencyKey: 'order-7' },
      ],
      isolationTrialMessages: 5,
      breakerMaxCooldownSeconds: 120,
    };
    expect(textReport([ran(runOf(scenario))], 3000)).toContain(
      '  T1 raw body (5 bytes), K1 succeed-with-external key "order-7"; batch size 1, 1 in flight per worker, 1 worker, ' +
        'limit 3, consumer timeout 5 s (visibility 30 s), isolation trial 5 messages, breaker cool-down cap 120 s\n',
    );
  });

  it('defect 16: given 3 invocations killed at their deadline in a failing scenario, then the report says so and names the remedy', () => {
    // Act: the seed's figures are wrong (5 completed), and the runner killed 3 invocations
    const results = [ran(runOf(SEED, observed, 3))];
    // Assess
    expect(textReport(results, 3000)).toContain(
      `  3 invocations were killed at their ${SEED.consumerTimeoutSeconds} s deadline: this machine was too slow ` +
        "for this scenario's timings; rerun on a quieter machine or with `npm run rehearsal -- --timeout-scale 2`\n",
    );
    expect(JSON.parse(jsonReport(results, 3000)).scenarios[0].killedAtDeadline).toBe(3);
  });

  it('given any run, then the report says how near the slowest answered invocation came to the deadline', () => {
    // Act
    const results = [ran(runOf(SEED, observed, 1))];
    // Assess
    expect(textReport(results, 3000)).toContain(
      `  deadline: the slowest invocation that answered took 1.2 s of its ${SEED.consumerTimeoutSeconds} s; invocations killed: 1\n`,
    );
    expect(JSON.parse(jsonReport(results, 3000)).scenarios[0].timings.slowestAnsweredMs).toBe(1234);
  });

  it('given a run in which no invocation answered, then the deadline line says so instead of a time', () => {
    // Act
    const report = textReport([ran({ ...runOf(SEED, observed, 2), slowestAnsweredMs: 0 })], 3000);
    // Assess
    expect(report).toContain('  deadline: no invocation answered; invocations killed: 2\n');
  });

  it('defect 16: given a failing scenario without kills, or a passing one with a kill, then no such line', () => {
    expect(textReport([ran(runOf(SEED))], 3000)).not.toContain('killed at');
    const passing = { ...SEED, expected: { ...SEED.expected, completed: 5, noHumanNeededFor: [] } };
    const passed = textReport([ran(runOf(passing, observed, 1))], 3000);
    expect(passed).toMatch(/^PASS/);
    expect(passed).not.toContain('killed at');
  });
});
