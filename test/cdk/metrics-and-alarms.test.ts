/**
 * Issue 21, item 3: a pipeline's metrics as every L2 gives them (`metricX()` returning a
 * cloudwatch.Metric), so a user's own alarms and dashboards read the series the consumer writes,
 * and its alarms by name, so a user can add an action to the one they care about.
 */
import { Template } from 'aws-cdk-lib/assertions';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { describe, expect, it } from 'vitest';
import { CONSUMER_METRIC, METRIC_NAMESPACE, METRIC_SERVICE } from '../../contract/metrics';
import { pipelineStack } from './synth';

describe('the pipeline’s metric helpers', () => {
  it('given an alarm on metricQuarantined({ reason }), then it watches the consumer’s series of that reason', () => {
    // Prepare
    const { stack, pipeline } = pipelineStack();

    // Act
    new cloudwatch.Alarm(stack, 'CrashLimit', {
      metric: pipeline.metricQuarantined({ reason: 'crash-limit' }),
      threshold: 5,
      evaluationPeriods: 1,
    });

    // Assess
    const alarm = Object.values(Template.fromStack(stack).findResources('AWS::CloudWatch::Alarm')).find(
      (resource) => resource.Properties.Threshold === 5,
    );
    expect(alarm?.Properties).toMatchObject({
      Namespace: METRIC_NAMESPACE,
      MetricName: CONSUMER_METRIC.quarantines,
      Statistic: 'Sum',
      Period: 60,
    });
    const dimensions = alarm?.Properties.Dimensions as { Name: string; Value: unknown }[];
    expect(dimensions.map((dimension) => dimension.Name).sort()).toStrictEqual([
      'Queue',
      'Reason',
      'service',
    ]);
    expect(dimensions.find((dimension) => dimension.Name === 'Reason')?.Value).toBe('crash-limit');
    expect(dimensions.find((dimension) => dimension.Name === 'service')?.Value).toBe(METRIC_SERVICE);
  });

  it('given the other helpers, then each names its metric and takes CloudWatch’s options', () => {
    // Prepare
    const { pipeline } = pipelineStack();

    // Act
    const metrics = [
      pipeline.metricOutcomeUnknown(),
      pipeline.metricBreakerTrips({ reason: 'outage' }),
      pipeline.metricAttempts({ statistic: 'Average' }),
      pipeline.metricConsumer(CONSUMER_METRIC.duplicates),
    ];

    // Assess
    expect(metrics.map((metric) => [metric.metricName, metric.statistic])).toStrictEqual([
      [CONSUMER_METRIC.outcomeUnknown, 'Sum'],
      [CONSUMER_METRIC.breakerTrips, 'Sum'],
      [CONSUMER_METRIC.attempts, 'Average'],
      [CONSUMER_METRIC.duplicates, 'Sum'],
    ]);
    expect(metrics[1].dimensions?.Reason).toBe('outage');
  });

  it('given a reason no quarantine has, or a reason for a metric not kept by reason, then it fails naming the value', () => {
    // Prepare
    const { pipeline } = pipelineStack();

    // Act and assess
    expect(() => pipeline.metricQuarantined({ reason: 'crash-limt' })).toThrow(
      /reason "crash-limt" is none of/,
    );
    expect(() => pipeline.metricBreakerTrips({ reason: 'outages' })).toThrow(
      /BreakerTrips: reason "outages" is none of quarantine-unwritable, quarantine-capacity, quarantine-share, outage/,
    );
    expect(() => pipeline.metricConsumer(CONSUMER_METRIC.attempts, { reason: 'outage' })).toThrow(
      /AttemptsStarted is not counted by reason \(reason: "outage"\)/,
    );
  });
});

describe('the pipeline’s alarms, by name', () => {
  it('given a pipeline, then each alarm is a named property, all of them in `alarms`', () => {
    // Prepare
    const { stack, pipeline } = pipelineStack();
    const { alarms } = pipeline;

    // Act
    const named = [
      alarms.quarantined,
      alarms.backstopNotEmpty,
      alarms.oldestMessageAge,
      alarms.consumerErrors,
      alarms.outcomeUnknown,
      alarms.breakerTripped,
      alarms.breakerUnreadable,
      alarms.pausedTooLong,
      alarms.operatorDecisionOverdue,
      ...Object.values(alarms.pauseExecutions),
      ...Object.values(alarms.verificationExecutions),
    ];

    // Assess
    expect(named).toStrictEqual(alarms.alarms);
    expect(stack.resolve(alarms.outcomeUnknown.metric.toMetricConfig().metricStat?.metricName)).toBe(
      CONSUMER_METRIC.outcomeUnknown,
    );
    expect(Object.keys(Template.fromStack(stack).findResources('AWS::CloudWatch::Alarm'))).toHaveLength(
      named.length,
    );
  });
});
