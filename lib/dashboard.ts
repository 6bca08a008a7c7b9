import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { CONSUMER_METRIC, type ConsumerMetric } from '../contract/metrics';
import { PipelineMetrics } from './metrics';
import { OPERATIONS_METRIC } from './operations/protocol';

export interface QuarantineDashboardProps {
  /** The source queue, whose depth and oldest message are shown; none for a Kafka source. */
  readonly queue?: sqs.IQueue;
  /** The source's name: the `Queue` dimension of this pipeline's own metrics. */
  readonly sourceName: string;
  readonly deadLetterQueue?: sqs.IQueue;
  readonly consumer: lambda.IFunction;
  readonly stateMachines: { readonly pause: sfn.IStateMachine; readonly verification: sfn.IStateMachine };
  /** Shown with their state at the top. */
  readonly alarms: readonly cloudwatch.IAlarm[];
}

/** Five-minute points: a day reads at a glance; the alarms look at every minute. */
const PERIOD = Duration.minutes(5);

/**
 * One page per pipeline, read top-down as an incident is: is the queue moving, is the consumer
 * healthy, what was quarantined and why, is the breaker open, do the state machines run.
 */
export class QuarantineDashboard extends Construct {
  public readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: QuarantineDashboardProps) {
    super(scope, id);
    const metrics = new PipelineMetrics(props.sourceName);
    const consumer = (name: ConsumerMetric) => metrics.consumer(name, { period: PERIOD });
    this.dashboard = new cloudwatch.Dashboard(this, 'Resource', {
      widgets: [
        [
          new cloudwatch.AlarmStatusWidget({
            title: 'Alarms',
            alarms: [...props.alarms],
            width: 8,
            height: 6,
          }),
          ...queueWidgets(props),
        ],
        [
          graph('Consumer errors and throttles', [
            props.consumer.metricErrors({ period: PERIOD }),
            props.consumer.metricThrottles({ period: PERIOD }),
          ]),
          graph('Consumer duration', [
            props.consumer.metricDuration({ statistic: cloudwatch.Stats.p(50), period: PERIOD }),
            props.consumer.metricDuration({ statistic: cloudwatch.Stats.p(99), period: PERIOD }),
            props.consumer.metricDuration({ statistic: cloudwatch.Stats.MAXIMUM, period: PERIOD }),
          ]),
        ],
        [
          graph('Quarantines by reason', [metrics.consumerByReason(CONSUMER_METRIC.quarantines, PERIOD)]),
          graph('Attempts', [
            consumer(CONSUMER_METRIC.attempts),
            consumer(CONSUMER_METRIC.retries),
            consumer(CONSUMER_METRIC.chargedCrashes),
            consumer(CONSUMER_METRIC.duplicates),
            consumer(CONSUMER_METRIC.outcomeUnknown),
          ]),
        ],
        [
          graph(
            'Breaker trips by reason',
            [metrics.consumerByReason(CONSUMER_METRIC.breakerTrips, PERIOD)],
            8,
          ),
          graph(
            'Probes and isolation trials',
            [
              consumer(CONSUMER_METRIC.probeSuccesses),
              consumer(CONSUMER_METRIC.probeFailures),
              consumer(CONSUMER_METRIC.isolationTrials),
            ],
            8,
          ),
          graph(
            'Paused (seconds so far)',
            [metrics.operations(OPERATIONS_METRIC.pausedSeconds, cloudwatch.Stats.MAXIMUM, PERIOD)],
            8,
          ),
        ],
        [
          executionsWidget('Pause executions', props.stateMachines.pause),
          executionsWidget('Verification executions', props.stateMachines.verification),
        ],
      ],
    });
  }
}

/**
 * The source queue's depth and oldest message, and the backstop's depth when the construct knows
 * it; nothing for a Kafka source.
 */
function queueWidgets(props: QuarantineDashboardProps): cloudwatch.IWidget[] {
  if (props.queue === undefined) return [];
  const source = new cloudwatch.GraphWidget({
    title: 'Source queue',
    left: [
      props.queue.metricApproximateNumberOfMessagesVisible({ period: PERIOD }),
      props.queue.metricApproximateNumberOfMessagesNotVisible({ period: PERIOD }),
    ],
    right: [props.queue.metricApproximateAgeOfOldestMessage({ period: PERIOD })],
    width: 8,
    height: 6,
  });
  if (props.deadLetterQueue === undefined) return [source];
  const backstop = graph(
    'Backstop queue depth',
    [props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: PERIOD })],
    8,
  );
  return [source, backstop];
}

function executionsWidget(title: string, machine: sfn.IStateMachine): cloudwatch.GraphWidget {
  return graph(title, [
    machine.metricStarted({ period: PERIOD }),
    machine.metricFailed({ period: PERIOD }),
    machine.metricTimedOut({ period: PERIOD }),
    machine.metricAborted({ period: PERIOD }),
  ]);
}

function graph(title: string, left: cloudwatch.IMetric[], width = 12): cloudwatch.GraphWidget {
  return new cloudwatch.GraphWidget({ title, left, width, height: 6 });
}
