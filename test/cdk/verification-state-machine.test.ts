import { Duration } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../contract/defaults';
import { OPEN_RECORDS_COUNTER } from '../../contract/quarantine';
import { stateMachineDefinition, synthPipeline } from './synth';

describe('VerificationStateMachine definition', () => {
  const { template } = synthPipeline();
  const { states } = stateMachineDefinition(template, 'Verification');

  it('checks the whole input before it tells anyone', () => {
    expect(states.IsVerificationInput.Choices).toHaveLength(1);
    expect(JSON.stringify(states.IsVerificationInput.Choices)).toMatch(/\$\.quarantineId.*\$\.messageKey/);
    expect(states.IsVerificationInput.Choices?.[0].Next).toBe('NotifyOutcomeUnknown');
    expect(states.NotifyOutcomeUnknown.Next).toBe('AwaitOperatorDecision');
  });

  it('waits for a person with a stored task token, a heartbeat and a timeout, escalating instead of deciding', () => {
    const wait = states.AwaitOperatorDecision;
    expect(wait).toMatchObject({
      Type: 'Task',
      Resource: 'arn:aws:states:::aws-sdk:dynamodb:updateItem.waitForTaskToken',
      HeartbeatSeconds: DEFAULTS.operatorHeartbeatSeconds,
      TimeoutSeconds: DEFAULTS.operatorTimeoutSeconds,
    });
    expect(JSON.stringify(wait.Parameters)).toContain('"S.$":"$$.Task.Token"');
    expect(wait.Parameters).toMatchObject({
      TableName: expect.stringMatching(/QuarantineRecords/),
      UpdateExpression: expect.stringMatching(/#taskToken = :token/),
      ConditionExpression: 'attribute_exists(#id) AND #status IN (:open, :awaiting)',
    });
    expect(wait.Catch?.[0]).toMatchObject({
      ErrorEquals: ['States.HeartbeatTimeout', 'States.Timeout'],
      Next: 'PublishDecisionOverdue',
    });
    // The overdue decision is counted for its alarm, then escalated, then waited for again.
    expect(states.PublishDecisionOverdue.Next).toBe('EscalateOutcomeUnknown');
    expect(states.PublishDecisionOverdueSkipped.Next).toBe('EscalateOutcomeUnknown');
    expect(states.EscalateOutcomeUnknown.Next).toBe('AwaitOperatorDecision');
  });

  it('routes done, not-done and discard to their outcomes, and anything else to a failure', () => {
    expect(states.RouteDecision.Choices?.map((choice) => [choice.Comment, choice.Next])).toEqual([
      ['done', 'ReadRecordMessageKey'],
      ['not-done (replayed once by the CLI)', 'ResolveAsReplayed'],
      ['discard', 'ResolveAsDiscarded'],
    ]);
    expect(states.RouteDecision.Default).toBe('DecisionWasInvalid');
    expect(states.ResolveAsDone.Result).toStrictEqual({ status: 'resolved' });
    expect(states.ResolveAsReplayed.Result).toStrictEqual({ status: 'replayed' });
    expect(states.ResolveAsDiscarded.Result).toStrictEqual({ status: 'resolved' });
    expect(states.DecisionWasInvalid.Next).toBe('NotifyVerificationFailed');
  });

  it('applies the decision with the audit entry appended and the token removed, one open record less in the same transaction', () => {
    expect(states.ApplyDecision.Resource).toBe('arn:aws:states:::aws-sdk:dynamodb:transactWriteItems');
    expect(states.ApplyDecision.Parameters).toMatchObject({
      TransactItems: [
        {
          Update: {
            TableName: expect.stringMatching(/QuarantineRecords/),
            Key: { id: { 'S.$': '$.quarantineId' } },
            UpdateExpression:
              'SET #status = :status, #audit = list_append(if_not_exists(#audit, :none), :entry) REMOVE #taskToken, #waitingSince',
            ConditionExpression: '#status = :awaiting',
          },
        },
        {
          Update: {
            TableName: expect.stringMatching(/QuarantineRecords/),
            Key: { id: { S: OPEN_RECORDS_COUNTER.key.id } },
            UpdateExpression: 'ADD #openRecords :oneLess',
            ConditionExpression: 'attribute_exists(#openRecords)',
            ExpressionAttributeValues: { ':oneLess': { N: '-1' } },
          },
        },
      ],
    });
    // A failed condition cancels the transaction: the record was moved on, or the count is gone.
    expect(states.ApplyDecision.Catch?.[0]).toMatchObject({
      ErrorEquals: ['DynamoDb.TransactionCanceledException'],
      Next: 'RecordWasNotAwaiting',
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
  });

  it('alerts and fails with VerificationFailed on any unexpected task error, naming the error only', () => {
    for (const task of [
      'AwaitOperatorDecision',
      'ReadRecordMessageKey',
      'MarkLedgerCompleted',
      'ApplyDecision',
    ]) {
      expect(states[task].Catch?.at(-1)).toMatchObject({
        ErrorEquals: ['States.ALL'],
        Next: `${task}Failed`,
      });
      expect(states[`${task}Failed`]).toMatchObject({
        Parameters: { error: 'VerificationFailed' },
        Next: 'NotifyVerificationFailed',
      });
    }
    expect(states.NotifyVerificationFailed.Next).toBe('VerificationFailed');
  });
});

describe('VerificationStateMachine props', () => {
  it('takes the operator wait from the construct', () => {
    const { template } = synthPipeline({
      operatorHeartbeat: Duration.hours(2),
      operatorTimeout: Duration.days(2),
    });
    const { states } = stateMachineDefinition(template, 'Verification');
    expect(states.AwaitOperatorDecision).toMatchObject({ HeartbeatSeconds: 7200, TimeoutSeconds: 172_800 });
  });
});
