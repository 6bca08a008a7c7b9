import * as path from 'node:path';
import { RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { PoisonQuarantine, type PoisonQuarantineProps } from './poison-quarantine';

/** The demo processing module: each message says what the worker does with it. */
export const DEMO_PROCESSOR_ENTRY = path.join(__dirname, '..', 'lambdas', 'demo', 'worker.ts');

export interface DemoStackProps extends StackProps {
  /**
   * Settings of the pipeline. The local rehearsal scales timeouts down so redeliveries come
   * back in seconds.
   * @default - the construct's defaults
   */
  readonly pipeline?: Omit<PoisonQuarantineProps, 'processorEntry'>;
}

/** The pipeline with the demo worker (lambdas/demo/worker.ts): what `cdk deploy` and the rehearsal use. */
export class DemoStack extends Stack {
  public readonly pipeline: PoisonQuarantine;

  constructor(scope: Construct, id: string, props: DemoStackProps = {}) {
    super(scope, id, props);
    this.pipeline = new PoisonQuarantine(this, 'Pipeline', {
      // A demo is meant to be torn down; a production stack keeps the default (RETAIN).
      removalPolicy: RemovalPolicy.DESTROY,
      ...props.pipeline,
      processorEntry: DEMO_PROCESSOR_ENTRY,
    });
  }
}
