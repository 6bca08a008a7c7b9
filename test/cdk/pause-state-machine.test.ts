import { Duration } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../contract/defaults';
import { ENV } from '../../contract/env';
import { translateDefinitionForMoto } from '../../tools/local-aws/deploy';
import { pipelineStack, stateMachineDefinition, synthPipeline } from './synth';

const WAIT_FOR_TOKEN = 'arn:aws:states:::aws-sdk:dynamodb:updateItem.waitForTaskToken';

describe('PauseStateMachine definition', () => {
  const { template } = synthPipeline();
  const { text, states } = stateMachineDefinition(template, 'Pause');

  it('merges the construct timings under the input, then checks the whole input', () => {
    expect(states.IsPauseInput.Choices?.[0]).toMatchObject({ Next: 'PauseDefaults' });
    expect(states.PauseDefaults.Result).toStrictEqual({
      cooldownSeconds: DEFAULTS.breakerCooldownSeconds,
      maxCooldownSeconds: DEFAULTS.breakerMaxCooldownSeconds,
      probeSeconds: DEFAULTS.breakerProbeSeconds,
      pollSeconds: DEFAULTS.breakerPollSeconds,
    });
    expect(states.ApplyPauseDefaults.Parameters).toStrictEqual({
      'input.$': 'States.JsonMerge($.defaults, $$.Execution.Input, false)',
    });
    expect(states.CheckPauseInput).toMatchObject({ Default: 'RejectInput' });
    expect(states.CheckPauseInput.Choices?.[0]).toMatchObject({ Next: 'StartPauseClock' });
  });

  it('waits for a person with a stored task token, a heartbeat and a timeout, escalating instead of deciding', () => {
    const wait = states.AwaitOperatorResume;
    expect(wait).toMatchObject({
      Type: 'Task',
      Resource: WAIT_FOR_TOKEN,
      HeartbeatSeconds: DEFAULTS.operatorHeartbeatSeconds,
      TimeoutSeconds: DEFAULTS.operatorTimeoutSeconds,
    });
    expect(JSON.stringify(wait.Parameters)).toContain('"S.$":"$$.Task.Token"');
    expect(wait.Parameters?.UpdateExpression).toMatch(/#taskToken = :token/);
    expect(wait.Catch?.[0]).toMatchObject({
      ErrorEquals: ['States.HeartbeatTimeout', 'States.Timeout'],
      Next: 'CountOverdueWait',
    });
    // The overdue wait is counted for its alarm, then escalated, then waited for again.
    expect(states.CountOverdueWait.Next).toBe('PublishPausedWait');
    expect(states.PublishPausedWait.Next).toBe('EscalatePause');
    expect(states.EscalatePause.Next).toBe('ReadEpochWhileWaiting');
    // ... while this run's epoch owns the breaker: a newer one supersedes it.
    expect(states.IsStillThisEpoch).toMatchObject({ Default: 'AwaitOperatorResume' });
    expect(states.IsStillThisEpoch.Choices?.[0]).toMatchObject({ Next: 'Superseded' });
    // A refused wait means a resume came first: it goes the way of every resume.
    expect(wait.Catch?.[1]).toMatchObject({
      ErrorEquals: ['DynamoDb.ConditionalCheckFailedException'],
      Next: 'ReadStopsLiftedBeforeRestore',
    });
  });

  it("keeps the operator's answer and wait on the episode's own item in the operator partition", () => {
    const answerKey = {
      pk: { S: 'operator' },
      sk: { 'S.$': "States.Format('answer#{}', $.epoch)" },
    };
    for (const name of [
      'AwaitOperatorResume',
      'ReadOperatorAfterDisable',
      'ForgetEarlierAnswerBeforeRestore',
    ])
      expect(states[name].Parameters?.Key).toStrictEqual(answerKey);
  });

  it('enables the mapping (a probe or a restore) only past a stop gate: a stop request no operator lifted waits for one (issue 22, defect 5)', () => {
    for (const [before, then] of [
      ['BeforeRestore', 'RestoreSettings'],
      ['BeforeProbe', 'RecordHalfOpen'],
    ]) {
      expect(states[`ReadStopsLifted${before}`]).toMatchObject({
        Parameters: { Key: { pk: { S: 'operator' }, sk: { S: 'stops-lifted' } } },
        Next: `ReadNewestStopRequest${before}`,
      });
      expect(states[`ReadNewestStopRequest${before}`]).toMatchObject({
        Resource: 'arn:aws:states:::aws-sdk:dynamodb:query',
        Parameters: {
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeValues: { ':pk': { S: 'stop' } },
          ScanIndexForward: false,
          Limit: 1,
          ConsistentRead: true,
        },
        Next: `StopRequestInForce${before}`,
      });
      expect(states[`StopRequestInForce${before}`]).toMatchObject({
        Default: then,
        Choices: [{ Next: `ForgetEarlierAnswer${before}` }],
      });
      expect(states[`ForgetEarlierAnswer${before}`]).toMatchObject({
        Next: 'AwaitOperatorResume',
        Parameters: {
          UpdateExpression: 'REMOVE #action',
          ConditionExpression: 'attribute_not_exists(#liftedThrough) OR #liftedThrough < :request',
        },
      });
    }
    // Every way out is a resume, and every resume passes the gate.
    expect(states.JudgeProbe.Default).toBe('ReadStopsLiftedBeforeRestore');
    expect(states.OperatorResumeAction.Choices?.[0]).toMatchObject({ Next: 'ReadStopsLiftedBeforeRestore' });
    expect(states.OperatorActionAfterCoolDown.Default).toBe('ReadStopsLiftedBeforeProbe');
  });

  it('names the mapping `Uuid` (the Java SDK v2 spelling) for AWS; the local deployment says `UUID`', () => {
    const mappingTasks = Object.values(states).filter((state) =>
      state.Resource?.includes(':aws-sdk:lambda:'),
    );
    expect(mappingTasks.length).toBeGreaterThanOrEqual(6);
    for (const task of mappingTasks) {
      expect(task.Parameters?.Uuid).toMatch(/^\{\{Ref PipelineConsumerSqsEventSource/);
      expect(task.Parameters?.UUID).toBeUndefined();
    }
    const forMoto = translateDefinitionForMoto(text);
    expect(forMoto).toContain('"UUID":"{{Ref PipelineConsumerSqsEventSource');
    expect(forMoto).not.toContain('"Uuid"');
  });

  it('disables, polls until Disabled (bounded), probes at BatchSize 1 / MaximumConcurrency 2, restores the remembered settings', () => {
    expect(states.DisableMapping.Parameters).toMatchObject({ Enabled: false });
    expect(states.WaitForDisabled).toMatchObject({ Type: 'Wait', SecondsPath: '$.pollSeconds' });
    expect(states.IsMappingDisabled).toMatchObject({ Default: 'RecordOpen' });
    expect(JSON.stringify(states.IsMappingDisabled.Choices)).toMatch(
      /"StringEquals":"Disabled".*"NumericGreaterThanEquals":60.*"Next":"MappingStuck"/,
    );
    expect(states.CoolDown).toMatchObject({ Type: 'Wait', SecondsPath: '$.cooldownSeconds' });
    expect(states.ProbeWindow).toMatchObject({ Type: 'Wait', SecondsPath: '$.probeSeconds' });
    expect(states.EnableForProbe.Parameters).toMatchObject({
      BatchSize: 1,
      ScalingConfig: { MaximumConcurrency: 2 },
      Enabled: true,
    });
    expect(states.RestoreMapping.Parameters).toMatchObject({
      'BatchSize.$': '$.original.batchSize',
      ScalingConfig: { 'MaximumConcurrency.$': '$.original.maxConcurrency' },
      Enabled: true,
    });
    expect(states.DoubleCooldown.Parameters).toStrictEqual({
      'value.$': 'States.MathAdd($.cooldownSeconds, $.cooldownSeconds)',
    });
  });

  it('reads the operator action at every loop point, and the probe counters after a window', () => {
    for (const when of ['AfterDisable', 'AfterCoolDown', 'AfterProbe']) {
      expect(states[`ReadOperator${when}`].Next).toBe(`OperatorAction${when}`);
      expect(states[`ReadOperator${when}`].Parameters?.ProjectionExpression).toBe('#action');
      expect(states[`OperatorAction${when}`].Choices?.map((choice) => choice.Next)).toEqual([
        'ReadStopsLiftedBeforeRestore',
        'HoldConsumer',
      ]);
    }
    expect(states.OperatorActionAfterProbe.Default).toBe('ReadBreakerAfterProbe');
    expect(states.ReadBreakerAfterProbe.Parameters?.ProjectionExpression).toBe(
      '#probeSuccesses, #probeFailures, #probeOwnFailures',
    );
    expect(states.ReadBreakerAfterProbe.Next).toBe('JudgeProbe');
    expect(states.JudgeProbe).toMatchObject({
      Default: 'ReadStopsLiftedBeforeRestore',
      Choices: [{ Next: 'CountCoolDown' }],
    });
  });

  it('writes the breaker only for its own epoch, so an old execution cannot overwrite a newer pause', () => {
    expect(states.RecordOpen.Parameters?.ConditionExpression).toBe(
      'attribute_not_exists(#epoch) OR #epoch <= :epoch',
    );
    for (const name of ['RecordHalfOpen', 'RecordClosed']) {
      expect(states[name].Parameters?.ConditionExpression).toBe('#epoch = :epoch');
      expect(states[name].Catch?.[0]).toMatchObject({
        ErrorEquals: ['DynamoDb.ConditionalCheckFailedException'],
      });
    }
    // The wait is on the episode's own answer item: refused only by a resume recorded first.
    expect(states.AwaitOperatorResume.Parameters?.ConditionExpression).toBe(
      'attribute_not_exists(#action) OR #action <> :resume',
    );
  });

  it('alerts and fails with PauseFailed on any unexpected task error, naming the error only', () => {
    const handlers = Object.entries(states).filter(
      ([name]) => name.endsWith('Failed') && !['NotifyPauseFailed', 'PauseFailed'].includes(name),
    );
    expect(handlers.length).toBeGreaterThanOrEqual(15);
    for (const [, handler] of handlers) {
      expect(handler).toMatchObject({ Type: 'Pass', Next: 'NotifyPauseFailed', ResultPath: '$.failure' });
      expect(JSON.stringify(handler.Parameters)).toContain('$.error.Error');
    }
    expect(states.NotifyPauseFailed.Next).toBe('PauseFailed');
  });

  it('passes the breaker timings to the consumer', () => {
    const [consumer] = Object.values(template.findResources('AWS::Lambda::Function'));
    expect(consumer.Properties.Environment.Variables).toMatchObject({
      [ENV.breakerCooldownSeconds]: String(DEFAULTS.breakerCooldownSeconds),
      [ENV.breakerMaxCooldownSeconds]: String(DEFAULTS.breakerMaxCooldownSeconds),
      [ENV.breakerProbeSeconds]: String(DEFAULTS.breakerProbeSeconds),
    });
  });
});

describe('PauseStateMachine props', () => {
  it('takes the operator wait and breaker timings from the construct', () => {
    const { template } = synthPipeline({
      operatorHeartbeat: Duration.hours(2),
      operatorTimeout: Duration.days(2),
      breakerCooldown: Duration.seconds(30),
      breakerMaxCooldown: Duration.minutes(10),
      breakerProbeWindow: Duration.seconds(45),
    });
    const { states } = stateMachineDefinition(template, 'Pause');
    expect(states.AwaitOperatorResume).toMatchObject({ HeartbeatSeconds: 7200, TimeoutSeconds: 172_800 });
    expect(states.PauseDefaults.Result).toMatchObject({
      cooldownSeconds: 30,
      maxCooldownSeconds: 600,
      probeSeconds: 45,
    });
    const [consumer] = Object.values(template.findResources('AWS::Lambda::Function'));
    expect(consumer.Properties.Environment.Variables).toMatchObject({
      [ENV.breakerCooldownSeconds]: '30',
      [ENV.breakerMaxCooldownSeconds]: '600',
      [ENV.breakerProbeSeconds]: '45',
    });
  });

  it.each([
    [
      'a cap below the cool-down',
      { breakerCooldown: Duration.minutes(10), breakerMaxCooldown: Duration.minutes(5) },
      /breakerMaxCooldown must be at least breakerCooldown \(given breakerMaxCooldown 300 s, breakerCooldown 600 s\)/,
    ],
    [
      'a heartbeat not shorter than the timeout',
      { operatorHeartbeat: Duration.days(8) },
      /operatorHeartbeat must be shorter than operatorTimeout \(given operatorHeartbeat 691200 s, operatorTimeout 604800 s\)/,
    ],
    [
      'a probe window over an hour',
      { breakerProbeWindow: Duration.hours(2) },
      /breakerProbeWindow \(seconds\) must be an integer from 1 to 3600 \(given 7200\)/,
    ],
  ])('rejects %s', (_name, props, message) => {
    expect(() => pipelineStack(props)).toThrow(message);
  });
});
