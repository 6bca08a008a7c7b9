/**
 * Plays one schedule over the in-memory world through the real consumer (World +
 * consumerHandler): send the messages, apply the events in order (the pause model moves as
 * time passes), then drain: every fault cleared, the outside system healthy, polls until the
 * queue is empty or a bound is reached (a stopped consumer resumed by the operator, a stuck
 * breaker given one new message to find it), every record waiting for a person answered, every
 * pause run to its end. The result is what the invariants judge. A Kafka schedule's consumer reads
 * a topic instead (kafka-polls.ts plays Lambda's Kafka mapping): its messages are records produced
 * to partitions, and its polls, duplicates, replays and drain go through the topic.
 */
import { DEFAULTS } from '../../contract/defaults';
import { ENV } from '../../contract/env';
import type { StoredRecord } from '../world/memory-quarantine';
import { scriptedProcessor } from '../world/scripted-processor';
import { World } from '../world/world';
import { FaultBoard } from './fault-board';
import { Mapping } from './mapping';
import { type PlantedBug, TracedOutside, tapPorts, tapProcessor } from './observe';
import { answer, answerOldest, replayOldestOpen, resumeConsumer } from './operator';
import { PauseModel } from './pause-model';
import { mulberry32 } from './prng';
import { type CampaignEvent, consumerEnvironment, type MessageSpec, type Schedule } from './schedule';
import {
  type KafkaObservation,
  queueSource,
  type Replay,
  type SentMessage,
  topicSource,
} from './schedule-source';
import { Trace } from './trace';

/** Polls per drain round, and rounds (a `not-done` answer replays and needs another). */
const DRAIN_POLLS = 300;
const DRAIN_ROUNDS = 4;
/** The mapping polls again about once a second while messages are visible: time passes. */
const DRAIN_POLL_MS = 1000;

export interface Observation {
  readonly schedule: Schedule;
  readonly world: World;
  readonly trace: Trace;
  /** Every distinct message sent: the originals and the operator's replays. */
  readonly sent: ReadonlyMap<string, SentMessage>;
  readonly board: FaultBoard;
  /** A Kafka schedule's: its topic and its log. */
  readonly kafka?: KafkaObservation;
}

export async function runSchedule(schedule: Schedule, plant?: PlantedBug): Promise<Observation> {
  const trace = new Trace();
  const specs = new Map<string, MessageSpec>();
  const outside = new TracedOutside(() => world, trace);
  const world: World = new World({
    ...(schedule.kafka === undefined ? {} : { source: 'kafka' as const }),
    env: {
      ...consumerEnvironment(schedule.config),
      ...(schedule.kafka?.partialBatchResponse === true ? { [ENV.kafkaPartialBatchResponse]: 'true' } : {}),
    },
    processorFor: (env) =>
      tapProcessor(
        scriptedProcessor(env, world, outside, (message) => {
          const scripts = specs.get(message.messageId)?.scripts ?? [];
          return scripts[Math.min(message.attempt, scripts.length) - 1] ?? [];
        }),
        { world, env, trace, board, outside, ...(plant === undefined ? {} : { plant }) },
      ),
    faultFor: (call, env) => board.faultFor(call, env.id),
    random: mulberry32(schedule.seed ^ 0x5eed),
    ...(schedule.scheduler === undefined ? {} : { interleave: mulberry32(schedule.scheduler) }),
  });
  const board = new FaultBoard(world.clock, trace, world.ledger);
  tapPorts(world, trace, plant);
  const pause = new PauseModel(world, schedule.config.cooldownSeconds, trace);
  const mapping = new Mapping(world, trace, pause, schedule.config);
  const source =
    schedule.kafka === undefined
      ? queueSource(world, mapping)
      : topicSource(world, trace, pause, { ...schedule, kafka: schedule.kafka }, mapping);
  const { kafka } = source;
  const sent = new Map<string, SentMessage>();
  /** The first message sent of each spec: the one its schedule's events name. */
  const firstSent = new Map<MessageSpec, string>();
  const send = (spec: MessageSpec, messageId: string, replay?: Replay) => {
    const message = source.send(spec, messageId, replay);
    specs.set(message.messageId, spec);
    sent.set(message.messageId, message);
    if (!firstSent.has(spec)) firstSent.set(spec, message.messageId);
  };
  let replays = 0;
  const operator = {
    world,
    decided: trace.operatorDecided,
    sendReplay: (record: StoredRecord) => {
      const spec = specs.get(record.messageId);
      if (spec === undefined)
        throw new Error(`replay of ${record.id}: its message ${record.messageId} is unknown`);
      replays += 1;
      send(spec, `replay-${replays}`, { replayOf: record.id, messageKey: record.messageKey });
    },
  };
  /** A tripped breaker with no running pause of its epoch: nothing in the machine will close it. */
  const stuckBreaker = (): string | undefined => {
    const breaker = world.control.breaker?.record;
    if (breaker === undefined || breaker.state === 'closed') return undefined;
    const driven = [...world.operations.executions.values()].some(
      (execution) =>
        execution.status === 'RUNNING' &&
        execution.input.kind === 'pause' &&
        execution.input.epoch === breaker.epoch,
    );
    return driven ? undefined : `breaker ${breaker.state} (epoch ${breaker.epoch}, ${breaker.reason})`;
  };

  for (const spec of schedule.messages) send(spec, spec.id);
  for (const event of schedule.events) {
    await apply(event);
    pause.tick();
  }
  await drain();
  trace.receives.sort((a, b) => a.seq - b.seq);
  world.timers.clear();
  return {
    schedule,
    world,
    trace,
    sent,
    board,
    ...(kafka === undefined ? {} : { kafka: { topic: kafka.topic, log: kafka.log } }),
  };

  async function apply(event: CampaignEvent): Promise<void> {
    switch (event.do) {
      case 'poll':
        await mapping.poll([event.env]);
        return;
      case 'poll-pair':
      case 'poll-many':
        await mapping.poll(event.envs);
        return;
      case 'pollers':
        await runPollers(event.envs, event.seconds);
        return;
      case 'advance':
        await passTime(world.clock.now() + event.seconds * 1000);
        return;
      case 'expire': {
        const next = world.queue.nextVisibleAt();
        if (next !== undefined) await passTime(next);
        return;
      }
      case 'duplicate': {
        const spec = schedule.messages[event.message];
        // A Kafka producer's retry is a record of its own, at the partition's next offset.
        if (spec !== undefined && kafka !== undefined) send(spec, spec.id);
        // SQS keeps one copy per messageId in the world's queue: a duplicate comes after the first.
        else if (spec !== undefined && !world.queue.messages.has(spec.id)) send(spec, spec.id);
        return;
      }
      case 'fault': {
        const spec = event.message === undefined ? undefined : schedule.messages[event.message];
        const key = spec === undefined ? undefined : sent.get(firstSent.get(spec) ?? spec.id)?.key;
        board.arm(event.point, event.kind, event.times, key);
        return;
      }
      case 'outside-outage':
        board.outsideOutage(event.mode, event.seconds);
        return;
      case 'table-outage':
        board.tableOutage(event.seconds);
        return;
      case 'redeploy':
        mapping.redeploy(event.attemptLimit);
        return;
      case 'replay':
        await replayOldestOpen(operator, event.withoutCause !== true);
        return;
      case 'answer':
        await answerOldest(operator, event.decision);
        return;
      case 'resume':
        // At any moment of the pause: the operator races the state machine (outage schedules,
        // whose invariants judge the consumer alone, have no operator).
        await resumeConsumer(operator, pause, schedule.config.cooldownSeconds);
        return;
      case 'kill-verification':
        world.operations.abortOldest('outcome-unknown');
        return;
      case 'kill-pause':
        // A run that fails (a publish refused, a throttled write) or is stopped, mid-pause.
        world.operations.abortOldest('pause');
        pause.tick();
        return;
      case 'pause-runs-fail':
        pause.failRuns(event.seconds, event.at);
        return;
      case 'poll-partitions':
        await kafka?.polls.poll(event.invocations);
        return;
      case 'rebalance':
        await kafka?.polls.rebalance(event.partition, event.env, event.to, event.afterMs);
        return;
    }
  }

  async function drain(): Promise<void> {
    board.clear();
    pause.clearRunFailures();
    let answered = 0;
    let canaries = 0;
    for (let round = 0; round < DRAIN_ROUNDS; round++) {
      await pollUntilEmpty();
      // A stuck breaker may only be repaired by the next batch that finds it: a new message comes.
      if (stuckBreaker() !== undefined && canaries++ === 0) {
        // It comes once every environment's cached control state has expired: a batch within the
        // cache period may not see the breaker yet (by design), and would find nothing to repair.
        await passTime(world.clock.now() + DEFAULTS.controlCacheSeconds * 1000);
        send({ id: 'canary', body: 'canary', scripts: [] }, 'canary');
        await pollUntilEmpty();
      }
      // Still stuck (a mapping left disabled receives nothing): the failed-execution alarm and
      // pq status ("NO PAUSE EXECUTION RUNNING") send the operator, who runs pq resume.
      if (stuckBreaker() !== undefined) {
        await operatorResumes();
        await pollUntilEmpty();
      }
      const before = replays;
      for (const record of [...world.quarantine.records.values()]) {
        if (record.status !== 'awaiting-operator') continue;
        const decision = schedule.answers[answered++ % Math.max(1, schedule.answers.length)] ?? 'discard';
        // A refused not-done (the ledger moved on) leaves the operator discard as the way out.
        if ((await answer(operator, record, decision)) || (await answer(operator, record, 'discard')))
          continue;
        if (!trace.unanswerable.includes(record.id)) trace.unanswerable.push(record.id);
      }
      if (replays === before) break;
      // The last round's replays were sent: a topic holds them at the head of their partitions,
      // and only an ended one lets the partition move on, so they are delivered once more.
      if (round === DRAIN_ROUNDS - 1 && kafka !== undefined) await pollUntilEmpty();
    }
    // Let every running pause finish: an empty queue gives its probe silence, and it closes.
    for (let guard = 0; guard < 32 && pause.nextTimer() !== undefined; guard++) {
      world.clock.advanceTo(pause.nextTimer() ?? 0);
      pause.tick();
    }
    const stuck = stuckBreaker();
    if (stuck !== undefined) {
      trace.breakerWithoutWayBack.push(
        `after the drain and a new message: ${stuck}, and no running pause drives it`,
      );
    }
  }

  /** `pq resume`; a failure of the command itself is a breaker with no way back. */
  async function operatorResumes(): Promise<void> {
    try {
      await resumeConsumer(operator, pause, schedule.config.cooldownSeconds);
    } catch (error) {
      trace.breakerWithoutWayBack.push(`pq resume failed: ${(error as Error).message}`);
    }
  }

  async function runPollers(envs: number, seconds: number): Promise<void> {
    const end = world.clock.now() + seconds * 1000;
    const slots = Array.from({ length: envs }, (_, slot) => slot);
    while (world.clock.now() < end) {
      pause.tick();
      if (pause.waitsForOperator()) await operatorResumes();
      const next = world.queue.nextVisibleAt();
      if (next === undefined) return;
      if (next > world.clock.now() && pause.mappingEnabled()) {
        await passTime(Math.min(next, end));
        continue;
      }
      await mapping.poll(slots);
      world.clock.advance(DRAIN_POLL_MS);
    }
  }

  async function pollUntilEmpty(): Promise<void> {
    for (let poll = 0; poll < DRAIN_POLLS; poll++) {
      pause.tick();
      // The operator resumes a stop once they have looked (the drain plays them).
      if (pause.waitsForOperator()) await operatorResumes();
      if (source.size() === 0) return;
      const next = source.nextVisibleAt();
      if (next !== undefined && pause.mappingEnabled()) await passTime(next);
      world.clock.advance(DRAIN_POLL_MS);
      await source.drainPoll(poll);
    }
  }

  /**
   * Time passes up to `target`, and the pause's timers fire on the way. A mapping enabled at the
   * probe footprint polls as soon as a message is visible: a real one does not sit out its probe
   * window while messages wait, so the window is never skipped in silence by a jump in time.
   */
  async function passTime(target: number): Promise<void> {
    for (let guard = 0; guard < 64; guard++) {
      pause.tick();
      const timer = pause.nextTimer();
      const visible = source.nextVisibleAt();
      if (pause.probing() && visible !== undefined && visible <= Math.min(target, timer ?? target)) {
        world.clock.advanceTo(visible);
        await source.probePoll();
        continue;
      }
      if (timer === undefined || timer > target) break;
      world.clock.advanceTo(timer);
    }
    world.clock.advanceTo(target);
    pause.tick();
  }
}
