/**
 * The operator CLI's answers to a paused consumer (rules 7 and 11) against the construct
 * deployed into moto: the action and its audit on the episode's answer item (`operator`/
 * `answer#<epoch>`, which the consumer's role cannot write), and, when the pause execution waits
 * with a task token there, the answer that lets it restore the mapping.
 */
import { type AttributeValue, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { DescribeExecutionCommand, StartExecutionCommand, StopExecutionCommand } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlState } from '../../lambdas/adapters/control-state';
import { MAX_PAUSE_RUNS, Operations } from '../../lambdas/adapters/operations';
import { type CliHarness, eventually, MOTO_CALLER, startCliHarness } from './support/cli-harness';

let cli: CliHarness;
let control: ControlState;

beforeAll(async () => {
  cli = await startCliHarness();
  control = new ControlState(cli.pipeline.clients.dynamodb, cli.pipeline.names.controlTable);
});
afterAll(async () => cli?.stop());

async function controlItem(pk: string, sk: string) {
  const { Item } = await cli.pipeline.clients.dynamodb.send(
    new GetItemCommand({
      TableName: cli.pipeline.names.controlTable,
      Key: { pk: { S: pk }, sk: { S: sk } },
      ConsistentRead: true,
    }),
  );
  return Item ?? {};
}
const breakerItem = () => controlItem('breaker', 'state');
/** The operator's answer to the pause episode `epoch`, and its wait's task token. */
const answerItem = (epoch: number) => controlItem('operator', `answer#${epoch}`);

/** Stops a run and waits until it has ended (moto may refuse a stop right after the start). */
async function stopRun(executionArn: string): Promise<void> {
  await eventually('the run stopped', async () => {
    try {
      await cli.pipeline.clients.sfn.send(new StopExecutionCommand({ executionArn }));
    } catch {
      return undefined;
    }
    const { status } = await cli.pipeline.clients.sfn.send(new DescribeExecutionCommand({ executionArn }));
    return status === 'RUNNING' ? undefined : status;
  });
}

// The tests share one breaker and run in order: never opened; a stop whose execution waits for the
// operator (and closes the breaker when answered); paused again, with no execution waiting.
describe('resume and hold', () => {
  it('refuses both while consumption is not paused (exit 2)', async () => {
    expect(await cli.run('resume', '--reason', 'x')).toStrictEqual({
      code: 2,
      stdout: '',
      stderr: 'pq resume: refused: consumption is not paused (breaker never opened): nothing to resume\n',
    });
    expect((await cli.run('hold', '--reason', 'x')).code).toBe(2);
  });

  it('answers a stopped consumer whose execution waits: the mapping is restored and the breaker closed', async () => {
    const { epoch } = await control.tripBreaker({
      reason: 'quarantine-unwritable',
      now: new Date(),
      stop: true,
    });
    const { executionArn } = await cli.pipeline.clients.sfn.send(
      new StartExecutionCommand({
        stateMachineArn: cli.pipeline.names.stateMachines.pause,
        name: `pause-${epoch}`,
        input: JSON.stringify({
          kind: 'pause',
          reason: 'quarantine-unwritable',
          epoch,
          stop: true,
          cooldownSeconds: 1,
          maxCooldownSeconds: 60,
          probeSeconds: 1,
          pollSeconds: 1,
        }),
      }),
    );
    await eventually('the pause to wait for an operator', async () => (await answerItem(epoch)).taskToken?.S);

    const status = await cli.run('status');
    const resume = await cli.run('resume', '--reason', 'quarantine bucket policy fixed');

    expect(status.stdout).toMatch(/^Mapping: +Disabled/m);
    expect(status.stdout).toMatch(
      /STOP: no automatic resume; .*WAITING FOR OPERATOR: pq resume \| pq hold; driven by pause-\d+ RUNNING$/m,
    );
    expect(resume).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('The waiting pause execution has been answered'),
    });
    const finished = await eventually('the pause execution to end', async () => {
      const { status: state } = await cli.pipeline.clients.sfn.send(
        new DescribeExecutionCommand({ executionArn }),
      );
      return state === 'RUNNING' ? undefined : state;
    });
    expect(finished).toBe('SUCCEEDED');
    expect((await breakerItem()).state).toStrictEqual({ S: 'closed' });
    expect((await cli.run('status')).stdout).toMatch(/^Mapping: +Enabled/m);
  });

  it('given a breaker open with no pause execution, then status names it stuck and resume starts the run that closes it', async () => {
    // The consumer tripped the breaker and died before starting its pause (issue 8, defect 1).
    const { epoch } = await control.tripBreaker({ reason: 'outage', now: new Date(), stop: false });

    const status = await cli.run('status');
    const json = await cli.run('status', '--json');
    const resume = await cli.run('resume', '--reason', 'the trip was never followed by a pause');

    expect(status.stdout).toMatch(
      new RegExp(
        `^Breaker: +OPEN .*NO PAUSE EXECUTION RUNNING for epoch ${epoch}: nothing drives it back; pq resume --reason`,
        'm',
      ),
    );
    expect(JSON.parse(json.stdout)).toMatchObject({
      breaker: { state: 'open', breaker: { state: 'open', reason: 'outage', epoch, stop: false } },
      pauseRuns: [],
    });
    expect(resume).toMatchObject({
      code: 0,
      stdout: expect.stringContaining(`started pause-${epoch}, which carries it out`),
    });
    await eventually('the started run to close the breaker', async () =>
      (await breakerItem()).state?.S === 'closed' ? true : undefined,
    );
    expect((await cli.run('status')).stdout).toMatch(/^Mapping: +Enabled/m);
  });

  it('given five runs of the pause ended (the consumer restarts no more), then resume still starts the next one, which closes the breaker', async () => {
    // Prepare: every run failed the same way (say, a permission missing) until someone fixed it.
    const { epoch } = await control.tripBreaker({ reason: 'outage', now: new Date(), stop: false });
    const operations = new Operations(cli.pipeline.clients.sfn, cli.pipeline.names.stateMachines);
    for (let run = 1; run <= MAX_PAUSE_RUNS; run++) {
      const started = await operations.startPause({ epoch, reason: 'outage', stop: false });
      if (!started.started) throw new Error(`run ${run} not started`);
      await stopRun(started.executionArn);
    }

    // Act
    const resume = await cli.run('resume', '--reason', 'the pause role got its permission back');

    // Assess
    expect(resume).toMatchObject({
      code: 0,
      stdout: expect.stringContaining(`started pause-${epoch}-r${MAX_PAUSE_RUNS + 1}, which carries it out`),
    });
    await eventually('the started run to close the breaker', async () =>
      (await breakerItem()).state?.S === 'closed' ? true : undefined,
    );
  });

  it("writes the answer with an audit entry on the episode's answer item; status shows it", async () => {
    const { epoch } = await control.tripBreaker({ reason: 'outage', now: new Date(), stop: false });

    const hold = await cli.run('hold', '--reason', 'payments API still down');
    const held = await answerItem(epoch);
    const status = await cli.run('status');
    const resume = await cli.run('resume', '--reason', 'payments API back');

    expect(hold).toStrictEqual({
      code: 0,
      stderr: '',
      stdout: `Recorded hold on the breaker. No pause execution waited for it: started pause-${epoch}, which carries it out.\n`,
    });
    expect(held.action).toStrictEqual({ S: 'hold' });
    expect(status.stdout).toMatch(
      /^Breaker: +OPEN since \S+; reason outage; epoch \d+; .*operator said hold/m,
    );
    expect(resume.code).toBe(0);
    // The run hold started carries the resume out: it closes the breaker.
    await eventually('the resumed breaker closed', async () =>
      (await breakerItem()).state?.S === 'closed' ? true : undefined,
    );
    const answered = await answerItem(epoch);
    expect(answered.action).toStrictEqual({ S: 'resume' });
    expect(answered.audit?.L?.map((entry) => entry.M)).toMatchObject([
      { who: { S: MOTO_CALLER }, what: { S: 'hold' }, why: { S: 'payments API still down' } },
      { who: { S: MOTO_CALLER }, what: { S: 'resume' }, why: { S: 'payments API back' } },
    ]);
  });
});

// After the tests above the breaker is closed; then a person garbles the item by hand. In order:
// pq shows it and refuses to resume it; the reset repairs it into a stop; resume ends the stop.
describe('an unreadable breaker item (issue 8, defect 5)', () => {
  /** ESC and a bidi override: printed as escapes, never as they are. */
  const GARBLED_STATE = 'halted\u001b[31m\u202eby-hand';
  const TOKEN = 'token-of-a-wait-nobody-answers';
  let epoch: number;

  async function putBreakerItem(item: Record<string, AttributeValue>) {
    await cli.pipeline.clients.dynamodb.send(
      new PutItemCommand({ TableName: cli.pipeline.names.controlTable, Item: item }),
    );
  }

  it('status shows it unreadable: what is wrong and the stored attributes, escaped, never the task token', async () => {
    const before = await breakerItem();
    epoch = Number(before.epoch?.N ?? 0);
    await putBreakerItem({ ...before, state: { S: GARBLED_STATE } });
    await putBreakerItem({ pk: { S: 'operator' }, sk: { S: `answer#${epoch}` }, taskToken: { S: TOKEN } });

    const status = await cli.run('status');
    const json = await cli.run('status', '--json');

    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(
      /^Breaker: +UNREADABLE: breaker: unknown state "halted\\u001b\[31m\\u202eby-hand"; stored: .*state=\{"S":"halted\\u001b\[31m\\u202eby-hand"\}.*; nothing runs: the consumer holds every message until pq reset-breaker --reason "\.\.\."$/m,
    );
    for (const output of [status.stdout, json.stdout]) {
      for (const active of ['\u001b', '\u202e']) expect(output).not.toContain(active);
      expect(output).not.toContain(TOKEN);
    }
    expect(JSON.parse(json.stdout).breaker.state).toBe('unreadable');
    expect(JSON.parse(json.stdout).breaker.breaker).toStrictEqual({
      state: 'unreadable',
      problem: `breaker: unknown state ${JSON.stringify(GARBLED_STATE)}`,
      epoch,
    });
  });

  it('resume and hold refuse it, pointing at the reset; nothing is written', async () => {
    const answer = await answerItem(epoch);
    const resume = await cli.run('resume', '--reason', 'x');
    const hold = await cli.run('hold', '--reason', 'x');

    for (const refused of [resume, hold]) {
      expect(refused).toMatchObject({
        code: 2,
        stderr: expect.stringContaining('pq reset-breaker --reason'),
      });
    }
    expect(await answerItem(epoch)).toStrictEqual(answer);
  });

  it('reset-breaker repairs it into a stop of the next epoch, audited, and starts the pause run that waits for resume', async () => {
    const missing = await cli.run('reset-breaker');
    const reset = await cli.run('reset-breaker', '--reason', 'INC-9: state edited by hand');
    const item = await breakerItem();

    expect(missing.code).toBe(2);
    expect(reset).toMatchObject({ code: 0, stderr: '' });
    expect(reset.stdout).toContain(`started pause-${epoch + 1}`);
    expect(item).toMatchObject({
      state: { S: 'open' },
      stop: { BOOL: true },
      epoch: { N: String(epoch + 1) },
      reason: { S: 'breaker-reset' },
    });
    expect(item.audit?.L?.at(-1)?.M).toMatchObject({
      who: { S: MOTO_CALLER },
      what: { S: 'reset-breaker' },
      why: { S: 'INC-9: state edited by hand' },
    });
    const token = await eventually(
      'the pause run to wait for an operator',
      async () => (await answerItem(epoch + 1)).taskToken?.S,
    );
    expect(token).not.toBe(TOKEN);
    expect((await cli.run('status')).stdout).toMatch(
      new RegExp(
        `^Breaker: +OPEN .*reason breaker-reset; epoch ${epoch + 1}; .*STOP: no automatic resume`,
        'm',
      ),
    );
  });

  it('refuses a second reset of a breaker that reads well; resume ends the stop as for any other', async () => {
    const again = await cli.run('reset-breaker', '--reason', 'once more');
    const resume = await cli.run('resume', '--reason', 'the item was repaired');

    expect(again).toMatchObject({ code: 2, stderr: expect.stringContaining('can be read') });
    expect(resume).toMatchObject({ code: 0 });
    await eventually('the breaker closed', async () =>
      (await breakerItem()).state?.S === 'closed' ? true : undefined,
    );
    expect((await cli.run('status')).stdout).toMatch(/^Mapping: +Enabled/m);
  });
});

// After the tests above the breaker is closed and reads well; a person then garbles only the
// fields operators write (the answer's audit trail and action) by hand.
describe('a readable breaker whose operator fields are garbled', () => {
  it('status still shows the breaker, says which field it cannot read, and nothing is lost', async () => {
    const before = await control.tripBreaker({ reason: 'outage', now: new Date(), stop: true });
    await cli.pipeline.clients.dynamodb.send(
      new PutItemCommand({
        TableName: cli.pipeline.names.controlTable,
        Item: {
          pk: { S: 'operator' },
          sk: { S: `answer#${before.epoch}` },
          audit: { S: 'edited by hand' },
          action: { N: '7' },
        },
      }),
    );

    const status = await cli.run('status');
    const json = await cli.run('status', '--json');

    expect(status).toMatchObject({ code: 0, stderr: '' });
    expect(status.stdout).toMatch(
      new RegExp(`^Breaker: +OPEN .*epoch ${before.epoch}; .*OPERATOR FIELDS UNREADABLE: answer: `, 'm'),
    );
    expect(JSON.parse(json.stdout).breaker).toMatchObject({
      breaker: { state: 'open', epoch: before.epoch },
      operatorFieldsProblem: expect.stringContaining('answer: '),
    });

    // The operator can still answer: the garbled trail is kept aside, a new one begins.
    const resume = await cli.run('resume', '--reason', 'audit edited by hand, looked at');
    expect(resume).toMatchObject({ code: 0, stderr: '' });
    await eventually('the breaker closed', async () =>
      (await breakerItem()).state?.S === 'closed' ? true : undefined,
    );
    const after = await answerItem(before.epoch);
    expect(after.garbledAudit).toStrictEqual({ S: 'edited by hand' });
    expect(after.audit?.L?.map((entry) => entry.M?.why)).toStrictEqual([
      { S: 'audit edited by hand, looked at' },
    ]);
  });
});
