/**
 * What an operator sees of a pipeline: its dashboard, the alarms on the consumer's own metrics,
 * and the outputs that name the consumer and the `pq` command line.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { CONSUMER_METRIC, METRIC_NAMESPACE, METRIC_SERVICE } from '../../contract/metrics';
import { PoisonQuarantine } from '../../lib/poison-quarantine';
import { FIXTURE_PROCESSOR, joinedText, synthPipeline, templateApp } from './synth';

interface Widget {
  readonly type: string;
  readonly properties: {
    readonly title: string;
    readonly alarms?: string[];
    readonly metrics?: (string | Record<string, unknown>)[][];
  };
}

function widgetsOf(template: Template): Widget[] {
  const dashboards = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
  expect(dashboards).toHaveLength(1);
  return (JSON.parse(joinedText(dashboards[0]?.Properties.DashboardBody)) as { widgets: Widget[] }).widgets;
}

function widget(widgets: readonly Widget[], title: string): Widget {
  const found = widgets.find((candidate) => candidate.properties.title === title);
  if (found === undefined) throw new Error(`no widget "${title}"`);
  return found;
}

/** A widget's metrics as `namespace metric dimension-values...`, or its expression. */
function linesOf(found: Widget): string[] {
  return (found.properties.metrics ?? []).map((line) =>
    line
      .map((part) => (typeof part === 'string' ? part : (part.expression ?? '')))
      .join(' ')
      .trim(),
  );
}

describe('the dashboard', () => {
  const { template } = synthPipeline();
  const widgets = widgetsOf(template);

  it('given the default props, then it shows queue, consumer, quarantines, breaker and executions, top-down', () => {
    expect(widgets.map((found) => found.properties.title)).toStrictEqual([
      'Alarms',
      'Source queue',
      'Backstop queue depth',
      'Consumer errors and throttles',
      'Consumer duration',
      'Quarantines by reason',
      'Attempts',
      'Breaker trips by reason',
      'Probes and isolation trials',
      'Paused (seconds so far)',
      'Pause executions',
      'Verification executions',
    ]);
  });

  it('given the default props, then it shows the state of every alarm of the pipeline', () => {
    const alarms = Object.keys(template.findResources('AWS::CloudWatch::Alarm'));
    expect(
      widget(widgets, 'Alarms').properties.alarms?.map((arn) =>
        arn.replace(/^\{\{GetAtt (.*)\.Arn\}\}$/, '$1'),
      ),
    ).toStrictEqual(alarms);
  });

  it('given the default props, then the queues show depth and the age of the oldest message', () => {
    expect(linesOf(widget(widgets, 'Source queue'))).toStrictEqual([
      expect.stringMatching(
        /^AWS\/SQS ApproximateNumberOfMessagesVisible QueueName \{\{GetAtt PipelineSource/,
      ),
      expect.stringMatching(
        /^AWS\/SQS ApproximateNumberOfMessagesNotVisible QueueName \{\{GetAtt PipelineSource/,
      ),
      expect.stringMatching(/^AWS\/SQS ApproximateAgeOfOldestMessage QueueName \{\{GetAtt PipelineSource/),
    ]);
    expect(linesOf(widget(widgets, 'Backstop queue depth'))).toStrictEqual([
      expect.stringMatching(
        /^AWS\/SQS ApproximateNumberOfMessagesVisible QueueName \{\{GetAtt PipelineBackstop/,
      ),
    ]);
  });

  it('given the default props, then the consumer shows errors, throttles and duration', () => {
    const consumer = (metric: string) =>
      expect.stringMatching(`^AWS/Lambda ${metric} FunctionName \\{\\{Ref PipelineConsumer`);
    expect(linesOf(widget(widgets, 'Consumer errors and throttles'))).toStrictEqual([
      consumer('Errors'),
      consumer('Throttles'),
    ]);
    expect(linesOf(widget(widgets, 'Consumer duration'))).toStrictEqual([
      consumer('Duration'),
      consumer('Duration'),
      consumer('Duration'),
    ]);
  });

  it("given the default props, then quarantines and trips show one line per reason, of this queue's series", () => {
    for (const [title, metric] of [
      ['Quarantines by reason', CONSUMER_METRIC.quarantines],
      ['Breaker trips by reason', CONSUMER_METRIC.breakerTrips],
    ]) {
      const [search] = linesOf(widget(widgets, title));
      expect(search).toMatch(
        new RegExp(
          `^SEARCH\\('\\{${METRIC_NAMESPACE},Queue,Reason,service\\} MetricName="${metric}" ` +
            `Queue="\\{\\{GetAtt PipelineSource[0-9A-F]{8}\\.Arn\\}\\}"', 'Sum', 300\\)$`,
        ),
      );
    }
  });

  it("given the default props, then the consumer's counts are read in its own series: service and queue", () => {
    const counts = [
      ...linesOf(widget(widgets, 'Attempts')),
      ...linesOf(widget(widgets, 'Probes and isolation trials')),
    ];
    const expected = [
      CONSUMER_METRIC.attempts,
      CONSUMER_METRIC.retries,
      CONSUMER_METRIC.chargedCrashes,
      CONSUMER_METRIC.duplicates,
      CONSUMER_METRIC.outcomeUnknown,
      CONSUMER_METRIC.probeSuccesses,
      CONSUMER_METRIC.probeFailures,
      CONSUMER_METRIC.isolationTrials,
    ];
    expect(counts).toStrictEqual(
      expected.map((metric) =>
        expect.stringMatching(
          new RegExp(
            `^${METRIC_NAMESPACE} ${metric} Queue \\{\\{GetAtt PipelineSource[0-9A-F]{8}\\.Arn\\}\\} service ${METRIC_SERVICE}$`,
          ),
        ),
      ),
    );
  });

  it('given the default props, then both state machines show executions started and failed', () => {
    for (const [title, machine] of [
      ['Pause executions', 'PipelinePause'],
      ['Verification executions', 'PipelineVerification'],
    ]) {
      const lines = linesOf(widget(widgets, title));
      for (const metric of ['ExecutionsStarted', 'ExecutionsFailed'])
        expect(lines).toContainEqual(
          expect.stringMatching(`^AWS/States ${metric} StateMachineArn \\{\\{Ref ${machine}`),
        );
    }
  });

  it('given a queue of the user, then there is no backstop widget: the construct made no backstop', () => {
    // Prepare
    const app = templateApp();
    const stack = new Stack(app, 'Mine');
    new PoisonQuarantine(stack, 'Pipeline', {
      processorEntry: FIXTURE_PROCESSOR,
      queue: new sqs.Queue(stack, 'Orders', { visibilityTimeout: Duration.seconds(180) }),
    });

    // Act
    const titles = widgetsOf(Template.fromStack(stack)).map((found) => found.properties.title);

    // Assess
    expect(titles).toContain('Source queue');
    expect(titles).not.toContain('Backstop queue depth');
  });
});

describe("the alarms on the consumer's own metrics", () => {
  const { template } = synthPipeline();

  it.each([
    ['OutcomeUnknown', CONSUMER_METRIC.outcomeUnknown, /pq verify/],
    ['BreakerTripped', CONSUMER_METRIC.breakerTrips, /pq status/],
  ])(
    'given the default props, then %s watches %s of this queue, summed by the minute, to the topic',
    (id, metric, what) => {
      const alarms = template.findResources('AWS::CloudWatch::Alarm', {
        Properties: { MetricName: metric, Namespace: METRIC_NAMESPACE },
      });
      expect(Object.keys(alarms)).toStrictEqual([expect.stringMatching(`^PipelineAlarms${id}[0-9A-F]{8}$`)]);
      expect(Object.values(alarms)[0]?.Properties).toMatchObject({
        // The series the consumer writes: both dimensions, or the alarm would watch an empty series.
        Dimensions: [
          { Name: 'Queue', Value: { 'Fn::GetAtt': [expect.stringMatching(/^PipelineSource/), 'Arn'] } },
          { Name: 'service', Value: METRIC_SERVICE },
        ],
        Statistic: 'Sum',
        Period: 60,
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        TreatMissingData: 'notBreaching',
        AlarmActions: [{ Ref: expect.stringMatching(/Topic/) }],
        AlarmDescription: expect.stringMatching(what),
      });
    },
  );
});

describe('the outputs', () => {
  /** The output whose logical id starts with the construct's id and `name`: its Value. */
  const outputValue = (template: Template, name: string) => {
    const outputs = Object.entries(template.findOutputs('*')).filter(([id]) =>
      id.startsWith(`Pipeline${name}`),
    );
    expect(outputs).toHaveLength(1);
    return outputs[0]?.[1].Value;
  };
  const consumer = { Ref: expect.stringMatching(/^PipelineConsumer[0-9A-F]{8}$/) };

  it('given a stack with a region, then they name the consumer and the pq command line with its region', () => {
    // Act
    const { template } = synthPipeline();

    // Assess
    expect(outputValue(template, 'ConsumerFunctionName')).toStrictEqual(consumer);
    expect(outputValue(template, 'OperatorCommand')).toStrictEqual({
      'Fn::Join': ['', ['pq status --function ', consumer, ' --region eu-west-1']],
    });
  });

  it('given an environment-agnostic stack, then the command line takes the region it is deployed to', () => {
    // Act
    const { template } = synthPipeline({}, null);

    // Assess
    expect(outputValue(template, 'OperatorCommand')).toStrictEqual({
      'Fn::Join': ['', ['pq status --function ', consumer, ' --region ', { Ref: 'AWS::Region' }]],
    });
  });
});
