import * as path from 'node:path';
import { RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
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
  /**
   * Read a self-managed Kafka topic instead of a queue (the local rehearsal's `--source kafka`, on
   * the embedded broker). Its credentials are the secret named DEMO_KAFKA_SECRET_NAME, which the
   * embedded broker does not ask for.
   * @default - an SQS queue
   */
  readonly kafka?: { readonly bootstrapServers: readonly string[]; readonly topic: string };
}

/** The demo's Kafka credentials, by name: a self-managed cluster over the internet needs a secret. */
export const DEMO_KAFKA_SECRET_NAME = 'pq-demo-kafka';

/** The pipeline with the demo worker (lambdas/demo/worker.ts): what `cdk deploy` and the rehearsal use. */
export class DemoStack extends Stack {
  public readonly pipeline: PoisonQuarantine;

  constructor(scope: Construct, id: string, props: DemoStackProps = {}) {
    super(scope, id, props);
    const kafka = props.kafka && {
      bootstrapServers: [...props.kafka.bootstrapServers],
      topic: props.kafka.topic,
      secret: secretsmanager.Secret.fromSecretNameV2(this, 'KafkaCredentials', DEMO_KAFKA_SECRET_NAME),
    };
    this.pipeline = new PoisonQuarantine(this, 'Pipeline', {
      // A demo is meant to be torn down; a production stack keeps the default (RETAIN).
      removalPolicy: RemovalPolicy.DESTROY,
      ...props.pipeline,
      ...(kafka === undefined ? {} : { kafka }),
      processorEntry: DEMO_PROCESSOR_ENTRY,
    });
  }
}
