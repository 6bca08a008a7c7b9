import { Duration } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../contract/defaults';
import { ENV } from '../../contract/env';
import { translateDefinitionForMoto } from '../../local/deploy';
import { actionsOf, pipelineStack, statementsOfRole, synthPipeline } from './synth';

type Json = Record<string, unknown>;
interface State extends Json {
  readonly Type: string;
  readonly Resource?: string;
  readonly Parameters?: Json;
  readonly Catch?: { ErrorEquals: string[]; Next: string }[];
  readonly Retry?: { ErrorEquals: string[] }[];
}

/**
 * The state machine's definition from the template. DefinitionString is an Fn::Join of text and
 * references; each reference becomes `{{Ref X}}` / `{{GetAtt X.Arn}}` inside its JSON string (the
 * partition becomes `aws`).
 */
function definitionOf(template: ReturnType<typeof synthPipeline>['template']) {
  const [machine] = Object.values(template.findResources('AWS::StepFunctions::StateMachine'));
  const [, parts] = machine.Properties.DefinitionString['Fn::Join'] as [string, unknown[]];
  const text = parts
    .map((part) => {
      if (typeof part === 'string') return part;
      const reference = part as { Ref?: string; 'Fn::GetAtt'?: string[] };
      if (reference.Ref === 'AWS::Partition') return 'aws';
      return reference.Ref ? `{{Ref ${reference.Ref}}}` : `{{GetAtt ${reference['Fn::GetAtt']?.join('.')}}}`;
    })
    .join('');
  const definition = JSON.parse(text) as {
    StartAt: string;
    States: Record<string, State>;
    QueryLanguage?: string;
  };
  return { text, definition, states: definition.States, machine };
}

const WAIT_FOR_TOKEN = 'arn:aws:states:::aws-sdk:dynamodb:updateItem.waitForTaskToken';
const isSdkTask = (state: State) => state.Resource?.startsWith('arn:aws:states:::aws-sdk:') ?? false;

describe('OperationsStateMachine definition', () => {
  const { template } = synthPipeline();
  const { text, definition, states, machine } = definitionOf(template);

  it('routes the two inputs to the outcome-unknown and pause paths and rejects anything else', () => {
    expect(definition.StartAt).toBe('Route');
    expect(definition.QueryLanguage ?? 'JSONPath').toBe('JSONPath');
    expect(Object.keys(states)).toEqual(
      expect.arrayContaining([
        // outcome unknown
        'NotifyOutcomeUnknown',
        'AwaitOperatorDecision',
        'EscalateOutcomeUnknown',
        'RouteDecision',
        'MarkLedgerCompleted',
        'ApplyDecision',
        'DecisionRecorded',
        'VerificationFailed',
        // pause
        'PauseDefaults',
        'ApplyPauseDefaults',
        'CheckPauseInput',
        'GetMappingSettings',
        'DisableMapping',
        'ReadMappingState',
        'IsMappingDisabled',
        'WaitForDisabled',
        'RecordOpen',
        'ReadOriginalSettings',
        'NotifyPaused',
        'StopOrCoolDown',
        'CoolDown',
        'RecordHalfOpen',
        'EnableForProbe',
        'ProbeWindow',
        'OperatorActionAfterProbe',
        'DoubleCooldown',
        'CapCooldown',
        'HoldConsumer',
        'AwaitOperatorResume',
        'EscalatePause',
        'RestoreMapping',
        'RecordClosed',
        'NotifyResumed',
        'Resumed',
        'Superseded',
        'PauseFailed',
        'RejectInput',
      ]),
    );
    expect(states.Route.Type).toBe('Choice');
    expect(states.RejectInput).toMatchObject({ Type: 'Fail', Error: 'InvalidInput' });
  });

  it('waits for a person with a stored task token, a heartbeat and a timeout, escalating instead of deciding', () => {
    for (const [name, overdue, escalation] of [
      ['AwaitOperatorDecision', 'PublishDecisionOverdue', 'EscalateOutcomeUnknown'],
      ['AwaitOperatorResume', 'CountOverdueWait', 'EscalatePause'],
    ]) {
      const wait = states[name];
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
        Next: overdue,
      });
      // The overdue wait is counted for its alarm, then escalated, then waited for again.
      const path: string[] = [];
      for (let state = overdue; state !== name && path.length < 5; state = String(states[state].Next)) {
        path.push(state);
      }
      expect(path).toContain(escalation);
      expect(states[escalation].Next).toBe(name);
    }
    expect(states.AwaitOperatorDecision.Parameters).toMatchObject({
      TableName: expect.stringMatching(/QuarantineRecords/),
      ConditionExpression: 'attribute_exists(#id) AND #status IN (:open, :awaiting)',
    });
  });

  it('stores task tokens only in the two waits, and never reads one back', () => {
    const holders = Object.entries(states)
      .filter(([, state]) => JSON.stringify(state).includes('$$.Task.Token'))
      .map(([name]) => name);
    expect(holders.sort()).toEqual(['AwaitOperatorDecision', 'AwaitOperatorResume']);
    for (const state of Object.values(states).filter((s) => s.Resource?.endsWith(':dynamodb:getItem'))) {
      expect(state.Parameters?.ProjectionExpression).toBeDefined();
      expect(JSON.stringify(state.Parameters)).not.toContain('taskToken');
    }
  });

  it('publishes no task token, message content or execution input in any notification', () => {
    const notifications = Object.values(states).filter(
      (state) => state.Resource === 'arn:aws:states:::sns:publish',
    );
    expect(notifications.length).toBeGreaterThanOrEqual(8);
    for (const notification of notifications) {
      const message = JSON.stringify(notification.Parameters);
      expect(message).not.toMatch(/Task\.Token|taskToken|\$\$\.Execution\.Input|messageKey|body/i);
      // A message built from named fields, never a whole-input path.
      expect(notification.Parameters?.['Message.$']).toBeUndefined();
      expect(notification.Parameters).toMatchObject({ Message: { 'execution.$': '$$.Execution.Name' } });
    }
  });

  it('applies the decision with the audit entry appended and the token removed', () => {
    expect(states.ApplyDecision.Parameters).toMatchObject({
      UpdateExpression:
        'SET #status = :status, #audit = list_append(if_not_exists(#audit, :none), :entry) REMOVE #taskToken, #waitingSince',
      ConditionExpression: '#status = :awaiting',
    });
    expect(states.MarkLedgerCompleted.Parameters).toMatchObject({
      TableName: expect.stringMatching(/Attempts/),
      // The item the record names, only while it holds this quarantine (issue 8, defect 2).
      Key: { pk: { 'S.$': '$.record.Item.messageKey.S' } },
      ConditionExpression: '#quarantineId = :quarantineId AND #state IN (:quarantined, :completed)',
      ExpressionAttributeValues: {
        ':completed': { S: 'completed' },
        ':quarantined': { S: 'quarantined' },
        ':quarantineId': { 'S.$': '$.quarantineId' },
      },
    });
    expect(states.DecisionWasInvalid.Next).toBe('NotifyVerificationFailed');
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
    expect(JSON.stringify(states.IsMappingDisabled)).toMatch(
      /"StringEquals":"Disabled".*"NumericGreaterThanEquals":60/,
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
    expect(states.AwaitOperatorResume.Parameters?.ConditionExpression).toBe(
      '#epoch = :epoch AND (attribute_not_exists(#operatorAction) OR #operatorAction <> :resume)',
    );
  });

  it('retries only transient errors of its SDK calls, never a failed condition', () => {
    for (const state of Object.values(states).filter(isSdkTask)) {
      const retried = (state.Retry ?? []).flatMap((retry) => retry.ErrorEquals);
      expect(retried.length).toBeGreaterThan(0);
      expect(retried).not.toContain('DynamoDb.ConditionalCheckFailedException');
      expect(retried).not.toContain('States.ALL');
      expect(retried).not.toContain('States.TaskFailed');
    }
  });

  it('logs every event without execution data and traces with X-Ray', () => {
    expect(machine.Properties).toMatchObject({
      StateMachineType: 'STANDARD',
      TracingConfiguration: { Enabled: true },
      LoggingConfiguration: { IncludeExecutionData: false, Level: 'ALL' },
    });
  });

  it('passes the breaker timings to the consumer and uses them as the pause defaults', () => {
    const [consumer] = Object.values(template.findResources('AWS::Lambda::Function'));
    expect(consumer.Properties.Environment.Variables).toMatchObject({
      [ENV.breakerCooldownSeconds]: String(DEFAULTS.breakerCooldownSeconds),
      [ENV.breakerMaxCooldownSeconds]: String(DEFAULTS.breakerMaxCooldownSeconds),
      [ENV.breakerProbeSeconds]: String(DEFAULTS.breakerProbeSeconds),
    });
    expect(states.PauseDefaults.Result).toStrictEqual({
      cooldownSeconds: DEFAULTS.breakerCooldownSeconds,
      maxCooldownSeconds: DEFAULTS.breakerMaxCooldownSeconds,
      probeSeconds: DEFAULTS.breakerProbeSeconds,
      pollSeconds: DEFAULTS.breakerPollSeconds,
    });
    expect(states.ApplyPauseDefaults.Parameters).toStrictEqual({
      'input.$': 'States.JsonMerge($.defaults, $$.Execution.Input, false)',
    });
  });
});

describe('OperationsStateMachine permissions', () => {
  const { template } = synthPipeline();
  const statements = statementsOfRole(template, 'OperationsRole');
  const resourcesOf = (action: string) =>
    statements.filter((s) => actionsOf([s]).includes(action)).map((s) => JSON.stringify(s.Resource));

  it('uses only the actions its states call, on this mapping, these tables and this topic', () => {
    const actions = new Set(actionsOf(statements).filter((action) => !/^(logs|xray):/.test(action)));
    expect([...actions].sort()).toEqual([
      'cloudwatch:PutMetricData',
      'dynamodb:getItem',
      'dynamodb:updateItem',
      'kms:Decrypt',
      'kms:GenerateDataKey*',
      'lambda:getEventSourceMapping',
      'lambda:updateEventSourceMapping',
      'sns:Publish',
    ]);
    for (const action of ['lambda:getEventSourceMapping', 'lambda:updateEventSourceMapping']) {
      expect(resourcesOf(action)).toEqual([
        expect.stringMatching(/event-source-mapping:.*PipelineConsumerSqsEventSource/),
      ]);
    }
    expect(resourcesOf('dynamodb:updateItem').sort()).toEqual([
      expect.stringMatching(/QuarantineRecords.*Arn/),
      expect.stringMatching(/StateAttempts.*Arn/),
      expect.stringMatching(/StateControl.*Arn/),
    ]);
    expect(resourcesOf('dynamodb:getItem').sort()).toEqual([
      expect.stringMatching(/QuarantineRecords.*Arn/),
      expect.stringMatching(/StateControl.*Arn/),
    ]);
    expect(resourcesOf('sns:Publish')).toEqual([expect.stringMatching(/"Ref":"PipelineTopic/)]);
    expect(resourcesOf('kms:GenerateDataKey*')).toEqual([expect.stringMatching(/PipelineTopicKey.*Arn/)]);
    const wildcards = statements.filter((s) => s.Resource === '*').flatMap((s) => actionsOf([s]));
    // None of these supports resource-level permissions.
    expect(wildcards.every((action) => /^(logs|xray):|^cloudwatch:PutMetricData$/.test(action))).toBe(true);
  });
});

describe('OperationsStateMachine props', () => {
  it('takes the operator wait and breaker timings from the construct', () => {
    const { template } = synthPipeline({
      operatorHeartbeat: Duration.hours(2),
      operatorTimeout: Duration.days(2),
      breakerCooldown: Duration.seconds(30),
      breakerMaxCooldown: Duration.minutes(10),
      breakerProbeWindow: Duration.seconds(45),
    });
    const { states } = definitionOf(template);
    expect(states.AwaitOperatorDecision).toMatchObject({ HeartbeatSeconds: 7200, TimeoutSeconds: 172_800 });
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
