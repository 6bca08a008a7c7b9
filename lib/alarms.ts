import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { BREAKER_UNREADABLE_LOG_EVENT, QUARANTINED_LOG_EVENT } from '../contract/log-events';
import { CONSUMER_METRIC, METRIC_NAMESPACE } from '../contract/metrics';
import { PipelineMetrics } from './metrics';
import { OPERATIONS_METRIC } from './operations/protocol';

// The state machines' metric steps (lib/operations/steps.ts) take the namespace from here.

/** What {@link QuarantineAlarms} watches, and where its alarms go. */
export interface QuarantineAlarmsProps {
  /** Every alarm's action publishes to this topic. */
  readonly topic: sns.ITopic;
  /** The source queue, whose oldest message's age raises an alarm; none for a Kafka source. */
  readonly queue?: sqs.IQueue;
  /**
   * The source's name (the queue's ARN, or a Kafka source's `<cluster>/<topic>`): the `Queue`
   * dimension of the consumer's counts and of the state machines' metrics for this pipeline.
   */
  readonly sourceName: string;
  /** The backstop queue; with it, an alarm when it holds messages. */
  readonly deadLetterQueue?: sqs.IQueue;
  /** The consumer function, whose errors raise an alarm. */
  readonly consumer: lambda.IFunction;
  /** The consumer's log group: metric filters count its quarantined and breaker-unreadable events. */
  readonly consumerLogGroup: logs.ILogGroup;
  /** A source message older than this raises an alarm. */
  readonly oldestMessageAge: Duration;
  /** A pause that has kept consumption stopped for longer than this raises an alarm. */
  readonly pausedTooLong: Duration;
  /** The operations state machines: the pauses, and the operator's waits on outcome-unknown records. */
  readonly stateMachines: {
    /** The pause state machine (rules 7 and 11). */
    readonly pause: sfn.IStateMachine;
    /** The verification state machine (rule 8). */
    readonly verification: sfn.IStateMachine;
  };
}

/** The three ways an operations execution ends that no normal work ends in. */
export interface ExecutionAlarms {
  /** An execution failed. */
  readonly failed: cloudwatch.Alarm;
  /** An execution timed out. */
  readonly timedOut: cloudwatch.Alarm;
  /** An execution was stopped (aborted). */
  readonly aborted: cloudwatch.Alarm;
}

/** What an operator must hear about, each alarm sent to the topic, each by its name. */
export class QuarantineAlarms extends Construct {
  /** Every alarm below, in the order they were made (the dashboard shows them all). */
  public readonly alarms: cloudwatch.Alarm[] = [];
  /** A message was quarantined. */
  public readonly quarantined: cloudwatch.Alarm;
  /** The backstop (dead-letter) queue holds messages; undefined when the pipeline has none it knows. */
  public readonly backstopNotEmpty?: cloudwatch.Alarm;
  private readonly oldestMessageAgeAlarm?: cloudwatch.Alarm;
  /** The consumer function failed invocations. */
  public readonly consumerErrors: cloudwatch.Alarm;
  /** An outcome-unknown record was made (rule 8). */
  public readonly outcomeUnknown: cloudwatch.Alarm;
  /** The breaker tripped (rules 7 and 11). */
  public readonly breakerTripped: cloudwatch.Alarm;
  /** The breaker item cannot be read: the consumer holds every message. */
  public readonly breakerUnreadable: cloudwatch.Alarm;
  /** A pause has stopped consumption for longer than `pausedTooLongAlarm`. */
  public readonly pausedTooLong: cloudwatch.Alarm;
  /** An outcome-unknown record waits past the operator heartbeat. */
  public readonly operatorDecisionOverdue: cloudwatch.Alarm;
  /** Pause executions that failed, timed out or were stopped. */
  public readonly pauseExecutions: ExecutionAlarms;
  /** Verification executions that failed, timed out or were stopped. */
  public readonly verificationExecutions: ExecutionAlarms;
  private readonly action: actions.SnsAction;

  constructor(scope: Construct, id: string, props: QuarantineAlarmsProps) {
    super(scope, id);
    this.action = new actions.SnsAction(props.topic);
    // A metric filter, not an SDK call: counting quarantines costs the consumer nothing.
    const quarantined = new logs.MetricFilter(this, 'QuarantinedFilter', {
      logGroup: props.consumerLogGroup,
      filterPattern: logs.FilterPattern.stringValue('$.event', '=', QUARANTINED_LOG_EVENT),
      metricNamespace: METRIC_NAMESPACE,
      metricName: 'Quarantined',
      metricValue: '1',
      dimensions: { Queue: '$.sourceQueue' },
    });
    this.quarantined = this.add(
      'Quarantined',
      'A message was quarantined: an operator decides what happens to it.',
      {
        // The filter's Queue dimension makes its own series: the alarm must name it to see it.
        metric: quarantined.metric({
          statistic: 'Sum',
          period: Duration.minutes(1),
          dimensionsMap: { Queue: props.sourceName },
        }),
        threshold: 0,
      },
    );
    if (props.deadLetterQueue) {
      this.backstopNotEmpty = this.add(
        'BackstopNotEmpty',
        'The native backstop queue holds messages our ledger could not handle.',
        {
          metric: props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
            period: Duration.minutes(1),
          }),
          threshold: 0,
        },
      );
    }
    if (props.queue) {
      this.oldestMessageAgeAlarm = this.add(
        'OldestMessageAge',
        'The oldest source message is older than the stated age: consumption may be paused.',
        {
          metric: props.queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(1) }),
          threshold: props.oldestMessageAge.toSeconds(),
        },
      );
    }
    this.consumerErrors = this.add(
      'ConsumerErrors',
      'The consumer function failed invocations (crashes, timeouts, stops).',
      {
        metric: props.consumer.metricErrors({ period: Duration.minutes(1) }),
        threshold: 0,
      },
    );
    const metrics = new PipelineMetrics(props.sourceName);
    this.outcomeUnknown = this.add(
      'OutcomeUnknown',
      "A message's outcome is unknown: its call may have reached the outside system. Check that system, then pq verify.",
      { metric: metrics.consumer(CONSUMER_METRIC.outcomeUnknown), threshold: 0 },
    );
    this.breakerTripped = this.add(
      'BreakerTripped',
      'The breaker tripped: consumption is paused (an outage) or stopped for an operator. pq status shows why.',
      { metric: metrics.consumer(CONSUMER_METRIC.breakerTrips), threshold: 0 },
    );
    this.breakerUnreadable = this.addBreakerUnreadableAlarm(props);
    const waits = this.addOperatorWaitAlarms(props, metrics);
    this.pausedTooLong = waits.pausedTooLong;
    this.operatorDecisionOverdue = waits.operatorDecisionOverdue;
    this.pauseExecutions = this.addExecutionAlarms(
      'Pause',
      props.stateMachines.pause,
      'a paused consumer may have no run left to resume it: pq status, then pq resume.',
    );
    this.verificationExecutions = this.addExecutionAlarms(
      'Verification',
      props.stateMachines.verification,
      'an outcome-unknown record may wait without its execution: pq show, then pq verify.',
    );
  }

  /**
   * The pause state machine publishes how long a pause has stopped consumption (at each
   * failed probe and each overdue stop), the verification state machine every outcome-unknown
   * decision overdue by a heartbeat (lib/operations/protocol.ts OPERATIONS_METRIC), per queue.
   */
  private addOperatorWaitAlarms(props: QuarantineAlarmsProps, metrics: PipelineMetrics) {
    const metric = (metricName: string, statistic: string) => metrics.operations(metricName, statistic);
    const pausedTooLong = this.add(
      'PausedTooLong',
      `A pause has kept consumption stopped for more than ${props.pausedTooLong.toHumanString()}: pq status shows why and what drives it.`,
      {
        metric: metric(OPERATIONS_METRIC.pausedSeconds, 'Maximum'),
        threshold: props.pausedTooLong.toSeconds(),
      },
    );
    const operatorDecisionOverdue = this.add(
      'OperatorDecisionOverdue',
      'An outcome-unknown record waits past the operator heartbeat: check the outside system, then pq verify.',
      { metric: metric(OPERATIONS_METRIC.decisionOverdue, 'Sum'), threshold: 0 },
    );
    return { pausedTooLong, operatorDecisionOverdue };
  }

  /**
   * The consumer holds every message while the breaker item cannot be read, and only a person can
   * repair it. The log line names its queue, and the alarm watches that queue's series alone: a
   * filter's dimensions make a series of their own, which an alarm without them never sees.
   */
  private addBreakerUnreadableAlarm(props: QuarantineAlarmsProps): cloudwatch.Alarm {
    const unreadable = new logs.MetricFilter(this, 'BreakerUnreadableFilter', {
      logGroup: props.consumerLogGroup,
      filterPattern: logs.FilterPattern.stringValue('$.event', '=', BREAKER_UNREADABLE_LOG_EVENT),
      metricNamespace: METRIC_NAMESPACE,
      metricName: 'BreakerUnreadable',
      metricValue: '1',
      dimensions: { Queue: '$.sourceQueue' },
    });
    return this.add(
      'BreakerUnreadable',
      'The breaker item cannot be read: the consumer runs nothing and holds every message. pq status shows what is wrong; repair it with pq reset-breaker, then pq resume.',
      {
        metric: unreadable.metric({
          statistic: 'Sum',
          period: Duration.minutes(1),
          dimensionsMap: { Queue: props.sourceName },
        }),
        threshold: 0,
      },
    );
  }

  /**
   * The oldest source message is older than `oldestMessageAgeAlarm`. A pipeline reading a Kafka
   * topic has no queue, hence no such alarm: reading it throws.
   */
  public get oldestMessageAge(): cloudwatch.Alarm {
    if (this.oldestMessageAgeAlarm === undefined) {
      throw new Error(
        `${this.node.path} watches a Kafka source: it has no oldestMessageAge alarm (a queue's)`,
      );
    }
    return this.oldestMessageAgeAlarm;
  }

  /**
   * No execution of an operations state machine ends this way in normal work: its waits escalate
   * and wait again, and nothing stops them. One that does leaves a record without its decision or
   * a pause without its resume. One alarm per metric: Step Functions publishes them only when they
   * happen, and a sum of such series has no value where one of them has no data.
   */
  private addExecutionAlarms(name: string, machine: sfn.IStateMachine, lost: string): ExecutionAlarms {
    const period = Duration.minutes(1);
    const what = `A ${name.toLowerCase()} execution`;
    return {
      failed: this.add(`${name}ExecutionsFailed`, `${what} failed: ${lost}`, {
        metric: machine.metricFailed({ period }),
        threshold: 0,
      }),
      timedOut: this.add(`${name}ExecutionsTimedOut`, `${what} timed out: ${lost}`, {
        metric: machine.metricTimedOut({ period }),
        threshold: 0,
      }),
      aborted: this.add(`${name}ExecutionsAborted`, `${what} was stopped: ${lost}`, {
        metric: machine.metricAborted({ period }),
        threshold: 0,
      }),
    };
  }

  private add(
    id: string,
    description: string,
    spec: { metric: cloudwatch.IMetric; threshold: number },
  ): cloudwatch.Alarm {
    const alarm = new cloudwatch.Alarm(this, id, {
      alarmDescription: description,
      metric: spec.metric,
      threshold: spec.threshold,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(this.action);
    this.alarms.push(alarm);
    return alarm;
  }
}
