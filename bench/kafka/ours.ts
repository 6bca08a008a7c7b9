/**
 * poison-quarantine on the Kafka topic: the real consumer (`consumerHandler` with the Kafka source)
 * over the in-memory world, its mapping played as sim/world/kafka-mapping.ts plays Lambda's with
 * its defaults (commit after a normal return; a function error or a crash commits nothing, and the
 * batch comes again), one execution environment per partition (a fresh one after a crash), and the
 * pause state machine as the fault campaign models it (sim/campaign/pause-model.ts): a tripped
 * breaker disables the mapping, half-open probes poll one record at a time, a good probe restores it.
 * Every port call is counted as the AWS requests its adapter sends (bench/calls/port-requests.ts).
 */
import { kafkaRecordId } from '../../contract/sources';
import type { QueueMessage } from '../../lambdas/consumer/types';
import { PauseModel } from '../../sim/campaign/pause-model';
import { Trace } from '../../sim/campaign/trace';
import { deliverPartition } from '../../sim/world/kafka-mapping';
import { MemoryTopic } from '../../sim/world/memory-topic';
import { OutsideSystem, type Step, scriptedProcessor } from '../../sim/world/scripted-processor';
import { type ExecutionEnvironment, type Handle, WORLD_TOPIC, World } from '../../sim/world/world';
import { type PathCalls, PortRequests } from '../calls/port-requests';
import type { KafkaSide } from './drive';
import type { RecordFate } from './figures';
import { dependencyDown, isPoison, type KafkaScenario } from './scenario';

type Environment = ExecutionEnvironment & { readonly handle: Handle };

export class OurConsumer implements KafkaSide {
  readonly world: World;
  readonly topic: MemoryTopic;
  private readonly requests = new PortRequests();
  private readonly trace = new Trace();
  private readonly pause: PauseModel;
  private readonly environments: Environment[];
  private readonly start: number;

  constructor(private readonly scenario: KafkaScenario) {
    const world: World = new World({
      source: 'kafka',
      random: () => 0.5,
      faultFor: this.requests.faultFor,
      processorFor: (env) =>
        scriptedProcessor(env, world, new OutsideSystem(), (message) => this.script(message)),
    });
    this.world = world;
    this.start = world.clock.now();
    this.topic = new MemoryTopic(WORLD_TOPIC, scenario.partitions, () => world.clock.now());
    this.pause = new PauseModel(world, world.config.policy.breakerCooldownSeconds, this.trace);
    this.environments = Array.from({ length: scenario.partitions }, () => world.environment());
  }

  get clock() {
    return this.world.clock;
  }

  get timers() {
    return this.world.timers;
  }

  /** Runs `work` (the drive); the AWS requests the consumer made in it. */
  measure(work: () => Promise<unknown>): Promise<PathCalls> {
    return this.requests.measure(work);
  }

  mapping(): 'enabled' | 'disabled' | 'probe' {
    this.pause.tick();
    if (!this.pause.mappingEnabled()) return 'disabled';
    return this.pause.probing() ? 'probe' : 'enabled';
  }

  async poll(partition: number, batchSize: number) {
    const env = this.environments[partition];
    const result = await deliverPartition(this.world, env, this.topic, partition, batchSize);
    if (result.kind === 'crashed') this.environments[partition] = this.world.environment();
    return { kind: result.kind, offsets: result.records.map((record) => record.offset) };
  }

  fate(partition: number, offset: number): RecordFate {
    const key = kafkaRecordId(WORLD_TOPIC, partition, offset);
    const record = [...this.world.quarantine.records.values()].find((stored) => stored.messageKey === key);
    if (record !== undefined) return { kind: 'quarantined', reason: record.reason };
    if (this.topic.committedOffset(partition) > offset) return { kind: 'completed' };
    return { kind: 'blocking' };
  }

  /** Records quarantined, and attempts charged, over the whole run. */
  tally(): { readonly quarantined: number; readonly charged: number } {
    const charged = this.world.ledger.all().reduce((sum, item) => sum + item.charged, 0);
    return { quarantined: this.world.quarantine.records.size, charged };
  }

  /** Virtual seconds the mapping was not at full polling (disabled, or at the probe's footprint). */
  pausedSeconds(end: number): number {
    let paused = 0;
    let since: number | undefined;
    for (const change of this.trace.mapping) {
      if (!change.enabled) since ??= change.at;
      else if (since !== undefined) {
        paused += change.at - since;
        since = undefined;
      }
    }
    return (paused + (since === undefined ? 0 : end - since)) / 1000;
  }

  /**
   * The user's work on a record, as the native handler does it: the poison kills the worker; the
   * dependency's 503 is a TransientError; otherwise it is done (the call is idempotent, so it is
   * not declared with ctx.external: no ledger writes of its own, as the callsPerMessage paths).
   */
  private script(message: QueueMessage): readonly Step[] {
    if (isPoison(Buffer.from(message.kafka?.value ?? '', 'base64'))) return [{ do: 'crash' }];
    if (dependencyDown(this.scenario, this.start, this.world.clock.now()))
      return [{ do: 'throw', error: 'transient' }];
    return [];
  }
}
