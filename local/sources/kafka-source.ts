/**
 * A local pipeline's Kafka topic on the embedded broker: records produced into it (idempotently,
 * so a retried send is not a second record), and what is left as the runner's consumer group sees
 * it (each partition's end offset less its committed one). A Kafka source has no backstop.
 */
import { Producer } from '@platformatic/kafka';
import { kafkaRecordId } from '../../contract/sources';
import type { KafkaRunner } from '../../tools/local-aws/runner';
import { EMPTY, type PipelineSource, type QueueDepth, withTotal } from './pipeline-source';

export class KafkaPipelineSource implements PipelineSource {
  readonly kind = 'kafka';
  private readonly producer: Producer;

  constructor(
    bootstrap: string,
    readonly topic: string,
    private readonly runner: Pick<KafkaRunner, 'lag'>,
  ) {
    this.producer = new Producer({
      clientId: 'poison-quarantine-rehearsal',
      bootstrapBrokers: [bootstrap],
      idempotent: true,
    });
  }

  async send(body: string, partition = 0): Promise<string> {
    const [id] = await this.produce([body], partition);
    return id;
  }

  sendBatch(bodies: readonly string[]): Promise<string[]> {
    return this.produce(bodies, 0);
  }

  /** Records not yet committed by the group: the topic's "left in the queue", all visible. */
  async depth(): Promise<QueueDepth> {
    const lags = await this.runner.lag();
    return withTotal({ visible: lags.reduce((sum, lag) => sum + lag.left, 0), inFlight: 0, delayed: 0 });
  }

  async backstopDepth(): Promise<QueueDepth> {
    return EMPTY;
  }

  close(): Promise<void> {
    return this.producer.close();
  }

  private async produce(bodies: readonly string[], partition: number): Promise<string[]> {
    const ids: string[] = [];
    // One record per send: each send's answer names its offset.
    for (const body of bodies) {
      const { offsets } = await this.producer.send({
        messages: [{ topic: this.topic, partition, value: Buffer.from(body, 'utf8') }],
      });
      const offset = offsets?.find((entry) => entry.partition === partition)?.offset;
      if (offset === undefined)
        throw new Error(`the broker named no offset for a record sent to ${this.topic}-${partition}`);
      ids.push(kafkaRecordId(this.topic, partition, offset.toString()));
    }
    return ids;
  }
}
