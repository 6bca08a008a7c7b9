/**
 * The event source mapping as the campaign plays it: environment slots (a dead or retired
 * environment is replaced by a cold start), polls of one or two environments at once (their
 * awaits interleave), nothing while the pause model has the mapping disabled, the probe
 * footprint while half-open, and a redeploy that retires every environment. Each record handed
 * to an invocation is traced with what happened to it.
 */
import type { SQSRecord } from 'aws-lambda';
import { BREAKER_STATE, PROBE_FOOTPRINT } from '../../contract/control';
import { ENV } from '../../contract/env';
import { LEDGER_STATE } from '../../contract/ledger';
import { MESSAGE_KEY_ATTRIBUTE, REPLAY_OF_ATTRIBUTE } from '../../contract/message-attributes';
import { recordKey } from '../../lambdas/core/message-key';
import type { ExecutionEnvironment, Handle, World } from '../world/world';
import type { PauseModel } from './pause-model';
import type { CampaignConfig } from './schedule';
import type { BreakerState, Trace } from './trace';

type Environment = ExecutionEnvironment & { readonly handle: Handle };

/** One invocation as the campaign traces it (kafka-polls.ts begins and ends its own). */
export interface Invocation {
  readonly env: Environment;
  readonly seq: number;
  readonly at: number;
  /** The breaker as the poll found it. */
  readonly breaker: BreakerState;
}

const CRASH_KINDS = new Set(['crash', 'crash-after-send']);

export class Mapping {
  private slots: (Environment | undefined)[] = [];
  private attemptLimit: number;

  constructor(
    private readonly world: World,
    private readonly trace: Trace,
    private readonly pause: PauseModel,
    private readonly config: CampaignConfig,
  ) {
    this.attemptLimit = config.attemptLimit;
  }

  /** A new deployment: later invocations run in new environments with the new limit. */
  redeploy(attemptLimit: number): void {
    this.attemptLimit = attemptLimit;
    this.slots = [];
  }

  /** The key the consumer gives a record (begin-attempt.ts identify); the campaign's replays are genuine. */
  keyOf(record: Pick<SQSRecord, 'messageId' | 'body' | 'messageAttributes'>): string {
    const replay = {
      messageKey: record.messageAttributes[MESSAGE_KEY_ATTRIBUTE]?.stringValue,
      replayOf: record.messageAttributes[REPLAY_OF_ATTRIBUTE]?.stringValue,
    };
    return recordKey({ messageId: record.messageId, body: record.body, replay }, this.config.messageKeyPath)
      .key;
  }

  /**
   * One poll per slot, all at once. Returns false when the mapping is disabled: then time moves
   * on to the pause's next timer instead (nothing is received while paused).
   */
  async poll(slots: readonly number[]): Promise<boolean> {
    this.pause.tick();
    if (!this.pause.mappingEnabled()) {
      const timer = this.pause.nextTimer();
      if (timer !== undefined) this.world.clock.advanceTo(timer);
      this.pause.tick();
      return false;
    }
    const probing = this.pause.probing();
    const batchSize = probing ? PROBE_FOOTPRINT.batchSize : this.config.batchSize;
    const chosen = distinct(slots).slice(0, probing ? PROBE_FOOTPRINT.maxConcurrency : slots.length);
    const breaker: BreakerState = this.world.control.breaker?.record.state ?? BREAKER_STATE.closed;
    const runs = chosen.map((slot) => {
      const env = this.environmentAt(slot);
      const seq = this.trace.next();
      this.trace.attempts.invoked(env.id, seq);
      const at = this.world.clock.now();
      return { env, seq, at, delivery: this.world.deliver(env, batchSize) };
    });
    const results = await Promise.all(runs.map((run) => run.delivery));
    for (const run of runs) this.trace.attempts.returned(run.env.id);
    runs.forEach((run, index) => {
      const result = results[index];
      const failed = new Set(
        result.kind === 'returned' ? result.failed : result.records.map((r) => r.messageId),
      );
      for (const record of result.records) {
        const key = this.keyOf(record);
        const returned = failed.has(record.messageId);
        this.trace.receives.push({
          seq: run.seq,
          at: run.at,
          messageId: record.messageId,
          key,
          envId: run.env.id,
          breaker,
          outcome: returned ? 'returned' : 'deleted',
          wastedByOwn: returned && this.ownFaultHit(run.env.id, run.seq),
        });
      }
    });
    return true;
  }

  /**
   * Whether the mapping polls now (Kafka's polls ask before each one); when it is disabled, time
   * moves on to the pause's next timer instead, as `poll` does.
   */
  enabled(): boolean {
    this.pause.tick();
    if (this.pause.mappingEnabled()) return true;
    const timer = this.pause.nextTimer();
    if (timer !== undefined) this.world.clock.advanceTo(timer);
    this.pause.tick();
    return false;
  }

  /** An invocation begins in the environment of `slot` (a cold start if it has none alive). */
  begin(slot: number): Invocation {
    const breaker: BreakerState = this.world.control.breaker?.record.state ?? BREAKER_STATE.closed;
    const env = this.environmentAt(slot);
    const seq = this.trace.next();
    this.trace.attempts.invoked(env.id, seq);
    return { env, seq, at: this.world.clock.now(), breaker };
  }

  /** It ended: each record it delivered is traced, `returned` unless the source let it go. */
  end(
    run: Invocation,
    records: readonly { readonly messageId: string; readonly key: string }[],
    returned: (messageId: string) => boolean,
  ): void {
    this.trace.attempts.returned(run.env.id);
    for (const record of records) {
      const back = returned(record.messageId);
      this.trace.receives.push({
        seq: run.seq,
        at: run.at,
        messageId: record.messageId,
        key: record.key,
        envId: run.env.id,
        breaker: run.breaker,
        outcome: back ? 'returned' : 'deleted',
        wastedByOwn: back && this.ownFaultHit(run.env.id, run.seq),
      });
    }
  }

  private environmentAt(slot: number): Environment {
    const current = this.slots[slot];
    if (current?.alive) return current;
    const redeployed = this.attemptLimit !== this.config.attemptLimit;
    const env = this.world.environment(
      redeployed ? { [ENV.attemptLimit]: String(this.attemptLimit) } : undefined,
    );
    this.trace.limitByEnv.set(env.id, this.attemptLimit);
    this.slots[slot] = env;
    env.onDeath(() => this.died(env.id));
    return env;
  }

  /**
   * Who the dead worker had in flight, by the ledger, as the oracle judges its crash (rules 5, 6),
   * and which of them it had begun to quarantine: their end was decided, whether or not the tap
   * that records it has run yet (it runs a few turns after the write; the death may come between).
   */
  private died(envId: string): void {
    const items = this.world.ledger
      .all()
      .filter((item) => item.state === LEDGER_STATE.inFlight && item.envId === envId);
    const held = items.map((item) => item.attemptId);
    const quarantining = items
      .filter((item) => item.quarantining !== undefined)
      .map((item) => item.attemptId);
    const takenForCrash = this.trace.crashedEnvironments.has(envId);
    this.trace.attempts.died(this.trace.next(), envId, { held, quarantining }, takenForCrash);
  }

  /**
   * A fault injected into our own AWS calls during this invocation. Any key counts: a record the
   * consumer hands back untouched because it paused for those failures was wasted by them too.
   */
  private ownFaultHit(envId: string, since: number): boolean {
    return this.trace.fired.some(
      (fault) => fault.seq > since && fault.envId === envId && !CRASH_KINDS.has(fault.kind),
    );
  }
}

/** Two invocations never share an environment: a repeated slot becomes the next free one. */
function distinct(slots: readonly number[]): number[] {
  const chosen: number[] = [];
  for (const slot of slots) {
    let candidate = slot;
    while (chosen.includes(candidate)) candidate += 1;
    chosen.push(candidate);
  }
  return chosen;
}
