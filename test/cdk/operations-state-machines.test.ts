/**
 * What both operations state machines promise, each with its own role: its own input kind only,
 * a comment on every state, task tokens only where a person is waited for, notifications without
 * secrets or content, retries of transient errors only, logs without execution data.
 */
import { describe, expect, it } from 'vitest';
import { actionsOf, stateMachineDefinition, statementsOfRole, synthPipeline } from './synth';

const { template } = synthPipeline();
const machines = {
  Pause: {
    ...stateMachineDefinition(template, 'Pause'),
    start: 'IsPauseInput',
    kind: 'pause',
    waits: 'AwaitOperatorResume',
  },
  Verification: {
    ...stateMachineDefinition(template, 'Verification'),
    start: 'IsVerificationInput',
    kind: 'outcome-unknown',
    waits: 'AwaitOperatorDecision',
  },
};

describe.each(Object.entries(machines))('the %s state machine', (_name, machine) => {
  const { definition, states, resource } = machine;

  it('accepts its own input kind only, and refuses any other with InvalidInput before anything else', () => {
    expect(definition.StartAt).toBe(machine.start);
    expect(definition.QueryLanguage ?? 'JSONPath').toBe('JSONPath');
    const start = states[machine.start];
    expect(start.Type).toBe('Choice');
    expect(JSON.stringify(start.Choices?.[0])).toContain(
      `{"Variable":"$.kind","StringEquals":"${machine.kind}"}`,
    );
    expect(start.Default).toBe('RejectInput');
    expect(states.RejectInput).toMatchObject({ Type: 'Fail', Error: 'InvalidInput' });
  });

  it('says why on every state, and what it is for', () => {
    expect(definition.Comment).toMatch(/^Rules? \d/);
    const silent = Object.entries(states).filter(([, state]) => !state.Comment?.trim());
    expect(silent.map(([name]) => name)).toEqual([]);
  });

  it('stores a task token only in its one wait, and never reads one back', () => {
    const holders = Object.entries(states)
      .filter(([, state]) => JSON.stringify(state).includes('$$.Task.Token'))
      .map(([name]) => name);
    expect(holders).toEqual([machine.waits]);
    for (const state of Object.values(states).filter((s) => s.Resource?.endsWith(':dynamodb:getItem'))) {
      expect(state.Parameters?.ProjectionExpression).toBeDefined();
      expect(JSON.stringify(state.Parameters)).not.toContain('taskToken');
    }
  });

  it('publishes no task token, message content or execution input in any notification', () => {
    const notifications = Object.values(states).filter(
      (state) => state.Resource === 'arn:aws:states:::sns:publish',
    );
    expect(notifications.length).toBeGreaterThanOrEqual(3);
    for (const notification of notifications) {
      const message = JSON.stringify(notification.Parameters);
      expect(message).not.toMatch(/Task\.Token|taskToken|\$\$\.Execution\.Input|messageKey|body/i);
      // A message built from named fields, never a whole-input path.
      expect(notification.Parameters?.['Message.$']).toBeUndefined();
      expect(notification.Parameters).toMatchObject({ Message: { 'execution.$': '$$.Execution.Name' } });
    }
  });

  it('retries only transient errors of its SDK calls, never a failed condition', () => {
    const sdkTasks = Object.values(states).filter((state) =>
      state.Resource?.startsWith('arn:aws:states:::aws-sdk:'),
    );
    expect(sdkTasks.length).toBeGreaterThan(0);
    for (const state of sdkTasks) {
      const retried = (state.Retry ?? []).flatMap((retry) => retry.ErrorEquals);
      expect(retried.length).toBeGreaterThan(0);
      expect(retried).not.toContain('DynamoDb.ConditionalCheckFailedException');
      expect(retried).not.toContain('States.ALL');
      expect(retried).not.toContain('States.TaskFailed');
    }
  });

  it('is a Standard workflow that logs every event without execution data and traces with X-Ray', () => {
    expect(resource.Properties).toMatchObject({
      StateMachineType: 'STANDARD',
      TracingConfiguration: { Enabled: true },
      LoggingConfiguration: { IncludeExecutionData: false, Level: 'ALL' },
    });
  });
});

describe('the state machines’ roles', () => {
  const grants = (role: string) => {
    const statements = statementsOfRole(template, role);
    const resourcesOf = (action: string) =>
      statements
        .filter((s) => actionsOf([s]).includes(action))
        .map((s) => JSON.stringify(s.Resource))
        .sort();
    const actions = [
      ...new Set(actionsOf(statements).filter((action) => !/^(logs|xray):/.test(action))),
    ].sort();
    const wildcards = statements.filter((s) => s.Resource === '*').flatMap((s) => actionsOf([s]));
    return { actions, resourcesOf, wildcards };
  };
  const topic = [expect.stringMatching(/"Ref":"PipelineTopic/)];
  const topicKey = [expect.stringMatching(/PipelineTopicKey.*Arn/)];

  it('lets the pause machine touch only the control table, this mapping, the topic and its metric', () => {
    const pause = grants('PipelinePauseRole');
    expect(pause.actions).toEqual([
      'cloudwatch:PutMetricData',
      'dynamodb:getItem',
      // The newest stop request (the stop gates).
      'dynamodb:query',
      'dynamodb:updateItem',
      'kms:Decrypt',
      'kms:GenerateDataKey*',
      'lambda:getEventSourceMapping',
      'lambda:updateEventSourceMapping',
      'sns:Publish',
    ]);
    for (const action of ['lambda:getEventSourceMapping', 'lambda:updateEventSourceMapping']) {
      expect(pause.resourcesOf(action)).toEqual([
        expect.stringMatching(/event-source-mapping:.*PipelineConsumerSqsEventSource/),
      ]);
    }
    for (const action of ['dynamodb:getItem', 'dynamodb:query', 'dynamodb:updateItem']) {
      expect(pause.resourcesOf(action)).toEqual([expect.stringMatching(/StateControl.*Arn/)]);
    }
    expect(pause.resourcesOf('sns:Publish')).toEqual(topic);
    expect(pause.resourcesOf('kms:GenerateDataKey*')).toEqual(topicKey);
    // None of these supports resource-level permissions.
    expect(pause.wildcards.every((action) => /^(logs|xray):|^cloudwatch:PutMetricData$/.test(action))).toBe(
      true,
    );
  });

  it('lets the verification machine touch only the records, the ledger, the topic and its metric', () => {
    const verification = grants('PipelineVerificationRole');
    expect(verification.actions).toEqual([
      'cloudwatch:PutMetricData',
      'dynamodb:getItem',
      'dynamodb:updateItem',
      'kms:Decrypt',
      'kms:GenerateDataKey*',
      'sns:Publish',
    ]);
    expect(verification.resourcesOf('dynamodb:getItem')).toEqual([
      expect.stringMatching(/QuarantineRecords.*Arn/),
    ]);
    expect(verification.resourcesOf('dynamodb:updateItem')).toEqual([
      expect.stringMatching(/QuarantineRecords.*Arn/),
      expect.stringMatching(/StateAttempts.*Arn/),
    ]);
    expect(verification.resourcesOf('sns:Publish')).toEqual(topic);
    expect(verification.resourcesOf('kms:GenerateDataKey*')).toEqual(topicKey);
    expect(
      verification.wildcards.every((action) => /^(logs|xray):|^cloudwatch:PutMetricData$/.test(action)),
    ).toBe(true);
  });
});
