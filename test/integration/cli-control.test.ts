/**
 * The operator CLI's answers to a paused consumer (rules 7 and 11) against the construct
 * deployed into moto: `operatorAction` and its audit on the breaker item, and, when the pause
 * execution waits with a task token, the answer that lets it restore the mapping.
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { DescribeExecutionCommand, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlState } from '../../lambdas/adapters/control-state';
import { type CliHarness, eventually, startCliHarness } from './support/cli-harness';

const MOTO_CALLER = 'arn:aws:sts::123456789012:user/moto';

let cli: CliHarness;
let control: ControlState;

beforeAll(async () => {
  cli = await startCliHarness();
  control = new ControlState(cli.pipeline.clients.dynamodb, cli.pipeline.names.controlTable);
});
afterAll(async () => cli?.stop());

async function breakerItem() {
  const { Item } = await cli.pipeline.clients.dynamodb.send(
    new GetItemCommand({
      TableName: cli.pipeline.names.controlTable,
      Key: { pk: { S: 'breaker' }, sk: { S: 'state' } },
      ConsistentRead: true,
    }),
  );
  return Item ?? {};
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
        stateMachineArn: cli.pipeline.names.stateMachineArn,
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
    await eventually('the pause to wait for an operator', async () => (await breakerItem()).taskToken?.S);

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
    const resume = await cli.run('resume', '--reason', 'the trip was never followed by a pause');

    expect(status.stdout).toMatch(
      new RegExp(
        `^Breaker: +OPEN .*NO PAUSE EXECUTION RUNNING for epoch ${epoch}: nothing drives it back; pq resume --reason`,
        'm',
      ),
    );
    expect(resume).toMatchObject({
      code: 0,
      stdout: expect.stringContaining(`started pause-${epoch}, which carries it out`),
    });
    await eventually('the started run to close the breaker', async () =>
      (await breakerItem()).state?.S === 'closed' ? true : undefined,
    );
    expect((await cli.run('status')).stdout).toMatch(/^Mapping: +Enabled/m);
  });

  it('writes operatorAction with an audit entry on the breaker item; status shows it', async () => {
    const { epoch } = await control.tripBreaker({ reason: 'outage', now: new Date(), stop: false });

    const hold = await cli.run('hold', '--reason', 'payments API still down');
    const held = await breakerItem();
    const status = await cli.run('status');
    const resume = await cli.run('resume', '--reason', 'payments API back');

    expect(hold).toStrictEqual({
      code: 0,
      stderr: '',
      stdout: `Recorded hold on the breaker. No pause execution waited for it: started pause-${epoch}, which carries it out.\n`,
    });
    expect(held.operatorAction).toStrictEqual({ S: 'hold' });
    expect(status.stdout).toMatch(
      /^Breaker: +OPEN since \S+; reason outage; epoch \d+; .*operator said hold/m,
    );
    expect(resume.code).toBe(0);
    // The run hold started carries the resume out: it closes the breaker and clears the action.
    const item = await eventually('the resumed breaker closed', async () => {
      const read = await breakerItem();
      return read.state?.S === 'closed' ? read : undefined;
    });
    expect(item.operatorAction).toBeUndefined();
    expect(item.audit?.L?.slice(-2).map((entry) => entry.M)).toMatchObject([
      { who: { S: MOTO_CALLER }, what: { S: 'hold' }, why: { S: 'payments API still down' } },
      { who: { S: MOTO_CALLER }, what: { S: 'resume' }, why: { S: 'payments API back' } },
    ]);
  });
});
