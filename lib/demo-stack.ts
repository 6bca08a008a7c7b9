import * as path from 'node:path';
import { Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { PoisonQuarantine } from './poison-quarantine';

/** Settings of the demo stack that the local rehearsal may scale down. */
export interface DemoStackProps extends StackProps {
  /**
   * Consumer timeout. The rehearsal shortens it (and with it the visibility timeout) so
   * redeliveries come back in seconds.
   * @default Duration.seconds(30)
   */
  readonly consumerTimeout?: Duration;
  /**
   * Charged attempts before quarantine.
   * @default 3
   */
  readonly attemptLimit?: number;
}

/** The pipeline with the demo worker (lambdas/demo/worker.ts): what `cdk deploy` and the rehearsal use. */
export class DemoStack extends Stack {
  public readonly pipeline: PoisonQuarantine;

  constructor(scope: Construct, id: string, props: DemoStackProps = {}) {
    super(scope, id, props);
    this.pipeline = new PoisonQuarantine(this, 'Pipeline', {
      processorEntry: path.join(__dirname, '..', 'lambdas', 'demo', 'worker.ts'),
      consumerTimeout: props.consumerTimeout,
      attemptLimit: props.attemptLimit,
      // A demo is meant to be torn down; a production stack keeps the default (RETAIN).
      removalPolicy: RemovalPolicy.DESTROY,
      oldestMessageAgeAlarm: Duration.minutes(15),
    });
  }
}
