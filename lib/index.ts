/**
 * The package's main entry ('poison-quarantine'): the construct and its props, for a CDK app.
 * What a processing module imports at run time is in 'poison-quarantine/runtime'
 * (lambdas/runtime.ts), which never loads aws-cdk-lib.
 *
 * @module poison-quarantine
 */

export { CONSUMER_METRIC, type ConsumerMetric } from '../contract/metrics';
export { QUARANTINE_REASONS, type QuarantineReason } from '../contract/quarantine';
export type { ExecutionAlarms, QuarantineAlarms, QuarantineAlarmsProps } from './alarms';
export type { ConsumerFunction, ConsumerFunctionProps } from './consumer-function';
export type { KafkaSourceProps } from './kafka-source-props';
export type { ConsumerMetricOptions } from './metrics';
export { PoisonQuarantine, type PoisonQuarantineProps } from './poison-quarantine';
