/**
 * The timings a local run is played with. The sections that wait out visibility timeouts
 * (outage, poison) scale every default down by one factor, so the dynamics stay those of a
 * deployment with the defaults and a run takes a minute or two instead of half an hour; the
 * report states the timings used. Recovery is measured with the defaults themselves.
 */
import { Duration } from 'aws-cdk-lib';
import { DEFAULTS } from '../../contract/defaults';
import type { DemoStackProps } from '../../lib/demo-stack';

export interface PipelineTimings {
  /** Every default timing divided by this (1: the defaults). */
  readonly scale: number;
  readonly consumerTimeoutSeconds: number;
  /** The queue's visibility timeout, 6x the consumer timeout (as the construct sets it). */
  readonly visibilityTimeoutSeconds: number;
  readonly breakerCooldownSeconds: number;
  readonly breakerProbeSeconds: number;
  readonly breakerMaxCooldownSeconds: number;
}

/** The construct's defaults divided by `scale`, in whole seconds. */
export function timingsScaledDown(scale: number): PipelineTimings {
  const scaled = (seconds: number) => Math.max(1, Math.round(seconds / scale));
  const consumerTimeoutSeconds = scaled(DEFAULTS.consumerTimeoutSeconds);
  return {
    scale,
    consumerTimeoutSeconds,
    visibilityTimeoutSeconds: DEFAULTS.visibilityTimeoutFactor * consumerTimeoutSeconds,
    breakerCooldownSeconds: scaled(DEFAULTS.breakerCooldownSeconds),
    breakerProbeSeconds: scaled(DEFAULTS.breakerProbeSeconds),
    breakerMaxCooldownSeconds: scaled(DEFAULTS.breakerMaxCooldownSeconds),
  };
}

export const DEFAULT_TIMINGS: PipelineTimings = timingsScaledDown(1);

/** The demo stack's settings for these timings; everything else keeps the construct's default. */
export function pipelineProps(timings: PipelineTimings): DemoStackProps['pipeline'] {
  return {
    consumerTimeout: Duration.seconds(timings.consumerTimeoutSeconds),
    breakerCooldown: Duration.seconds(timings.breakerCooldownSeconds),
    breakerProbeWindow: Duration.seconds(timings.breakerProbeSeconds),
    breakerMaxCooldown: Duration.seconds(timings.breakerMaxCooldownSeconds),
  };
}
