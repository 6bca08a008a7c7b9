/**
 * Issue 22, defect 2: a queue the user brings is checked as the construct's own is, and the
 * consumer is told the receive count SQS really redrives at (its last-receive rules use it).
 */
import { Duration, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { ENV } from '../../contract/env';
import { PoisonQuarantine } from '../../lib/poison-quarantine';
import type { PoisonQuarantineProps } from '../../lib/poison-quarantine-props';
import { FIXTURE_PROCESSOR, templateApp } from './synth';

const QUEUE_ARN = 'arn:aws:sqs:eu-west-1:111111111111:orders';

/** A stack (unbundled: these are template tests) and a pipeline built from the props. */
function build(props: (stack: Stack) => Partial<PoisonQuarantineProps>) {
  const app = templateApp();
  const stack = new Stack(app, 'Mine', { env: { account: '111111111111', region: 'eu-west-1' } });
  new PoisonQuarantine(stack, 'Pipeline', { processorEntry: FIXTURE_PROCESSOR, ...props(stack) });
  return stack;
}

/** The receive count the consumer quarantines by, as its environment carries it. */
function consumerLimit(stack: Stack): unknown {
  const consumer = Object.values(
    Template.fromStack(stack).findResources('AWS::Lambda::Function', {
      Properties: { Environment: { Variables: Match.objectLike({ [ENV.attemptsTable]: Match.anyValue() }) } },
    }),
  );
  return consumer[0]?.Properties.Environment.Variables[ENV.backstopMaxReceiveCount];
}

const imported = (stack: Stack) => sqs.Queue.fromQueueArn(stack, 'Orders', QUEUE_ARN);

describe('issue 22 defect 2: imported queue, assumed redrive', () => {
  it('refuses an imported queue without its maxReceiveCount, naming the queue', () => {
    expect(() => build((stack) => ({ queue: imported(stack) }))).toThrow(
      `an imported queue needs backstopMaxReceiveCount, its redrive policy's maxReceiveCount, which CDK cannot read (given queue ${QUEUE_ARN} and no backstopMaxReceiveCount)`,
    );
  });

  it("tells the consumer an imported queue's maxReceiveCount given beside it", () => {
    const stack = build((scope) => ({ queue: imported(scope), backstopMaxReceiveCount: 12 }));
    expect(consumerLimit(stack)).toBe('12');
  });

  it('warns that the visibility timeout of an imported queue cannot be checked, naming the minimum', () => {
    const stack = build((scope) => ({ queue: imported(scope), backstopMaxReceiveCount: 12 }));
    Annotations.fromStack(stack).hasWarning(
      '/Mine/Pipeline',
      Match.stringLikeRegexp('visibility timeout of an imported queue cannot be checked.*at least 180 s'),
    );
  });

  it.each<[string, (stack: Stack) => Partial<PoisonQuarantineProps>, string]>([
    [
      "an imported queue's maxReceiveCount below the attempt limit plus margin",
      (stack) => ({ queue: imported(stack), backstopMaxReceiveCount: 3 }),
      'backstopMaxReceiveCount must be an integer from 10 (attemptLimit 3 + transientRetries 3 + 4) to 1000 (given 3)',
    ],
    [
      'a queue of the stack whose visibility timeout is the consumer timeout',
      (stack) => ({ queue: new sqs.Queue(stack, 'Orders') }),
      "the queue's visibility timeout must be at least 6x consumerTimeout (given visibilityTimeout 30 s, consumerTimeout 30 s)",
    ],
    [
      'a queue of the stack whose redrive comes before the attempt limit plus margin',
      (stack) => ({
        queue: new sqs.Queue(stack, 'Orders', {
          visibilityTimeout: Duration.seconds(180),
          deadLetterQueue: { queue: new sqs.Queue(stack, 'OrdersDlq'), maxReceiveCount: 3 },
        }),
      }),
      "the queue's redrive maxReceiveCount must be at least 10 (attemptLimit 3 + transientRetries 3 + 4) (given 3)",
    ],
    [
      'a maxReceiveCount beside a queue whose redrive CDK knows, and differs',
      (stack) => ({
        queue: new sqs.Queue(stack, 'Orders', {
          visibilityTimeout: Duration.seconds(180),
          deadLetterQueue: { queue: new sqs.Queue(stack, 'OrdersDlq'), maxReceiveCount: 12 },
        }),
        backstopMaxReceiveCount: 15,
      }),
      "backstopMaxReceiveCount must be the queue's redrive maxReceiveCount or left out (given 15, the queue's 12)",
    ],
  ])('refuses %s', (_, props, message) => {
    expect(() => build(props)).toThrow(message);
  });

  it('grows the default redrive of its own queue with the attempt limit', () => {
    const stack = build(() => ({ attemptLimit: 10 }));
    Template.fromStack(stack).hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: { deadLetterTargetArn: Match.anyValue(), maxReceiveCount: 17 },
    });
    expect(consumerLimit(stack)).toBe('17');
  });
});

describe("issue 21: an imported queue's backstop, named", () => {
  const DLQ_ARN = 'arn:aws:sqs:eu-west-1:111111111111:orders-dlq';
  const importedBackstop = (stack: Stack) => sqs.Queue.fromQueueArn(stack, 'OrdersDlq', DLQ_ARN);

  it('alarms on it and lets an operator hold, take and delete its messages', () => {
    // Prepare
    const app = templateApp();
    const stack = new Stack(app, 'Mine', { env: { account: '111111111111', region: 'eu-west-1' } });
    const pipeline = new PoisonQuarantine(stack, 'Pipeline', {
      processorEntry: FIXTURE_PROCESSOR,
      queue: imported(stack),
      backstopMaxReceiveCount: 12,
      backstopQueue: importedBackstop(stack),
    });
    const role = new iam.Role(stack, 'OnCall', { assumedBy: new iam.AccountRootPrincipal() });

    // Act
    pipeline.grantOperator(role);

    // Assess
    const template = Template.fromStack(stack);
    expect(pipeline.alarms.backstopNotEmpty).toBeDefined();
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Dimensions: [{ Name: 'QueueName', Value: 'orders-dlq' }],
    });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: [
              'sqs:GetQueueUrl',
              'sqs:GetQueueAttributes',
              'sqs:ReceiveMessage',
              'sqs:ChangeMessageVisibility',
              'sqs:DeleteMessage',
            ],
            Resource: DLQ_ARN,
          }),
        ]),
      },
    });
  });

  it('has no backstop alarm for an imported queue without it', () => {
    const app = templateApp();
    const stack = new Stack(app, 'Mine', { env: { account: '111111111111', region: 'eu-west-1' } });
    const pipeline = new PoisonQuarantine(stack, 'Pipeline', {
      processorEntry: FIXTURE_PROCESSOR,
      queue: imported(stack),
      backstopMaxReceiveCount: 12,
    });
    expect(pipeline.deadLetterQueue).toBeUndefined();
    expect(pipeline.alarms.backstopNotEmpty).toBeUndefined();
  });

  it('refuses it without a queue, or beside a queue whose redrive target CDK knows and differs, naming both', () => {
    expect(() => build((stack) => ({ backstopQueue: importedBackstop(stack) }))).toThrow(
      'backstopQueue names the dead-letter queue of a given queue; the created queue has its own (given backstopQueue Mine/OrdersDlq and no queue)',
    );
    expect(() =>
      build((stack) => ({
        queue: new sqs.Queue(stack, 'Orders', {
          visibilityTimeout: Duration.seconds(180),
          deadLetterQueue: { queue: new sqs.Queue(stack, 'Target'), maxReceiveCount: 10 },
        }),
        backstopQueue: importedBackstop(stack),
      })),
    ).toThrow(
      "backstopQueue must be the queue's redrive target Mine/Target or left out (given Mine/OrdersDlq)",
    );
  });
});
