/**
 * A discrete-event model of many execution environments sharing the control items, to find the
 * peak request rate on any single DynamoDB item or partition. Each environment keeps its control
 * state in the consumer's own ControlCache; the decisions are the core's (evaluateOutage,
 * afterCompletedMessage, startTrial); the requests each step makes follow the consumer's
 * orchestration (lambdas/consumer/batch.ts, record-lifecycle.ts, outage-watch.ts):
 * - every environment reads breaker and isolation once per cache period, and sooner while it
 *   sees the breaker not closed, as the consumer's ControlCache decides (`holdingBreaker`
 *   decides whether the batch is refused);
 * - a transient failure first reads the control items fresh (kept in the cache): when the breaker
 *   is open already it only queries the window; else it writes one event into the `failure`
 *   partition, queries the window newest first, a page at a time until enough distinct keys, then
 *   may trip the breaker (one conditional write on it, winner or not);
 * - during an isolation trial every message that passes counts the trial down (one conditional
 *   write on the isolation item, counted or not);
 * - a quarantine reads rule 11a's open-record counter (one strongly consistent GetItem), then
 *   writes its record and `ADD 1` on the counter in one TransactWriteItems (2 units per item: the
 *   counter's 2 land on that one item, the record's on its own key).
 * The state machine is abstracted: the mapping is disabled one poll after the trip, and closed
 * again after the cool-down if the outside system is back (the probe's footprint is 2
 * environments of batch 1, left out), else the cool-down doubles.
 */
import { DEFAULTS } from '../../contract/defaults';
import { FAILURE_EVENTS_PER_PAGE } from '../../lambdas/adapters/control-state';
import { ControlCache } from '../../lambdas/consumer/control-cache';
import { type BreakerRecord, holdingBreaker } from '../../lambdas/core/breaker';
import {
  afterCompletedMessage,
  type IsolationTrial,
  NO_TRIAL,
  startTrial,
} from '../../lambdas/core/isolation';
import { evaluateOutage, type FailureEvent } from '../../lambdas/core/outage';
import { defaultPolicy } from '../../lambdas/core/types';
import type { ControlPort } from '../../lambdas/ports/consumer-ports';
import type { ControlSnapshot } from '../../lambdas/ports/control';
import { type HotItem, ItemLoad, type ItemPeak } from './item-load';
import type { ScaleScenario } from './scenario';

const HOT_ITEMS: readonly HotItem[] = ['breaker', 'isolation', 'failureWindow', 'openRecordsCounter'];
const READ_UNIT_BYTES = 4096;
const STEP_MS = 10;
/** A transactional write costs each of its items 2 units (prepare and commit), under 1 KB. */
const TRANSACTION_UNITS_PER_ITEM = 2;

export interface ScaleResult {
  readonly peakItemWritesPerSecond: number;
  readonly peakItemReadsPerSecond: number;
  readonly items: Readonly<Record<HotItem, ItemPeak>>;
  readonly pausedAtSecond?: number;
}

interface Environment {
  readonly cache: ControlCache;
  nextInvocationAt: number;
}

export async function runScaleModel(scenario: ScaleScenario): Promise<ScaleResult> {
  return new ScaleModel(scenario).run();
}

class ScaleModel {
  private readonly policy = defaultPolicy();
  private readonly load = new ItemLoad();
  private now = 0;
  private breaker: BreakerRecord | undefined;
  private mappingEnabledAt = 0;
  private mappingDisabledAt = Number.POSITIVE_INFINITY;
  private trial: IsolationTrial = NO_TRIAL;
  /** Events inside the window, as [at, count] per step: their bytes are what a window query reads. */
  private windowSteps: [number, number][] = [];
  /** The latest events: enough for the verdict, since every event of the model has its own key. */
  private latestEvents: FailureEvent[] = [];
  private messagesSeen = 0;
  private pausedAt?: number;

  constructor(private readonly scenario: ScaleScenario) {}

  async run(): Promise<ScaleResult> {
    const environments = this.environments();
    for (this.now = 0; this.now < this.scenario.seconds * 1000; this.now += STEP_MS) {
      this.playStateMachine();
      if (this.now === this.scenario.crashAtSecond * 1000) this.trial = startTrial(this.now, this.policy);
      if (!this.mappingDelivers()) continue;
      const interval = (this.scenario.batchSize * this.scenario.environments * 1000) / this.arrivalRate();
      for (const environment of environments) {
        if (environment.nextInvocationAt > this.now) continue;
        environment.nextInvocationAt = this.now + interval;
        await this.invoke(environment);
      }
    }
    const items = this.load.peaks(HOT_ITEMS);
    const peaks = Object.values(items);
    return {
      peakItemWritesPerSecond: Math.max(...peaks.map((peak) => peak.peakWritesPerSecond)),
      peakItemReadsPerSecond: Math.max(...peaks.map((peak) => peak.peakReadsPerSecond)),
      items,
      ...(this.pausedAt === undefined ? {} : { pausedAtSecond: this.pausedAt / 1000 }),
    };
  }

  private environments(): Environment[] {
    // One port per environment: the cache only ever calls `snapshot`.
    const control = { snapshot: async () => this.snapshot() } as Pick<ControlPort, 'snapshot'> as ControlPort;
    return Array.from({ length: this.scenario.environments }, (_, index) => ({
      cache: new ControlCache(control, DEFAULTS.controlCacheSeconds * 1000, () => new Date(this.now)),
      // Spread over one cache period, so the environments' cached reads age out at different
      // moments, as they do after cold starts at different times.
      nextInvocationAt: (index * DEFAULTS.controlCacheSeconds * 1000) / this.scenario.environments,
    }));
  }

  /** One strongly consistent BatchGetItem: one read unit on each control item. */
  private snapshot(): ControlSnapshot {
    this.load.read('breaker', this.now);
    this.load.read('isolation', this.now);
    return { breaker: this.breaker, isolation: this.trial, replayFrozen: false };
  }

  private async invoke(environment: Environment): Promise<void> {
    // As batch.ts: the cache decides how fresh a breaker in motion must be; a holding one refuses.
    const snapshot = await environment.cache.get();
    const breaker = snapshot.breaker;
    if (breaker?.state === 'unreadable' || holdingBreaker(breaker) !== undefined) return;
    const inTrial = snapshot.isolation?.active === true;
    for (let index = 0; index < this.scenario.batchSize; index++) {
      this.messagesSeen += 1;
      if (this.outsideSystemDown()) {
        if (await this.failTransiently(environment)) return;
      } else if (this.messagesSeen % this.scenario.poisonOneIn === 0) {
        this.quarantine();
      }
      if (inTrial) this.passTrialMessage();
    }
  }

  /**
   * Rule 7, as outage-watch.ts: a fresh read of the control items (kept in the cache); if the
   * breaker is open already, the window query alone, with the event in hand; else the event,
   * the window query and, on a trip verdict, one conditional write on the breaker (winner or
   * not). True when this batch paused.
   */
  private async failTransiently(environment: Environment): Promise<boolean> {
    const event = { key: `event-${this.messagesSeen}`, at: this.now };
    const { breaker } = await environment.cache.refresh();
    if (breaker?.state === 'open') {
      this.readWindow();
      return evaluateOutage([...this.latestEvents, event], this.now, this.policy).trip;
    }
    this.load.write('failureWindow', this.now);
    this.addFailureEvent(event);
    this.readWindow();
    if (!evaluateOutage(this.latestEvents, this.now, this.policy).trip) return false;
    this.load.write('breaker', this.now);
    if (this.breaker?.state !== 'open') this.trip();
    return true;
  }

  /**
   * Newest first, a page at a time until enough distinct keys: every event here has its own
   * key, so the first page settles it.
   */
  private readWindow(): void {
    const pageBytes =
      Math.min(this.eventsInWindow(), FAILURE_EVENTS_PER_PAGE) * this.scenario.failureEventBytes;
    this.load.read('failureWindow', this.now, Math.max(1, Math.ceil(pageBytes / READ_UNIT_BYTES)));
  }

  private trip(): void {
    const cooldownSeconds = this.breaker?.cooldownSeconds ?? this.policy.breakerCooldownSeconds;
    const epoch = (this.breaker?.epoch ?? 0) + 1;
    this.breaker = {
      state: 'open',
      reason: 'outage',
      epoch,
      openedAt: this.now,
      cooldownSeconds,
      stop: false,
    };
    this.pausedAt ??= this.now;
    this.mappingDisabledAt = this.now + DEFAULTS.breakerPollSeconds * 1000;
    this.mappingEnabledAt = this.now + cooldownSeconds * 1000;
  }

  /** The pause path, abstracted: closed again after the cool-down, or open for a doubled one. */
  private playStateMachine(): void {
    if (this.breaker?.state !== 'open' || this.now < this.mappingEnabledAt) return;
    if (this.outsideSystemDown()) {
      const cooldownSeconds = Math.min(
        this.breaker.cooldownSeconds * 2,
        this.policy.breakerMaxCooldownSeconds,
      );
      this.breaker = { ...this.breaker, openedAt: this.now, cooldownSeconds };
      this.mappingEnabledAt = this.now + cooldownSeconds * 1000;
      return;
    }
    const { epoch, cooldownSeconds } = this.breaker;
    this.breaker = { state: 'closed', epoch, cooldownSeconds, stop: false };
    this.mappingDisabledAt = Number.POSITIVE_INFINITY;
  }

  /** Rule 11a: the counter read (one unit, a few bytes), then its ADD inside the record's transaction. */
  private quarantine(): void {
    this.load.read('openRecordsCounter', this.now);
    this.load.write('openRecordsCounter', this.now, TRANSACTION_UNITS_PER_ITEM);
  }

  private passTrialMessage(): void {
    this.load.write('isolation', this.now);
    this.trial = afterCompletedMessage(this.trial);
  }

  private addFailureEvent(event: FailureEvent): void {
    const last = this.windowSteps[this.windowSteps.length - 1];
    if (last?.[0] === this.now) last[1] += 1;
    else this.windowSteps.push([this.now, 1]);
    this.latestEvents.push(event);
    this.latestEvents = this.latestEvents.slice(-this.policy.outageFailureThreshold);
  }

  private eventsInWindow(): number {
    const start = this.now - this.policy.outageWindowSeconds * 1000;
    this.windowSteps = this.windowSteps.filter(([at]) => at >= start);
    return this.windowSteps.reduce((sum, [, count]) => sum + count, 0);
  }

  private mappingDelivers(): boolean {
    return this.now < this.mappingDisabledAt || this.now >= this.mappingEnabledAt;
  }

  private outsideSystemDown(): boolean {
    const { from, to } = this.scenario.outage;
    return this.now >= from * 1000 && this.now < to * 1000;
  }

  private arrivalRate(): number {
    return (
      this.scenario.messagesPerSecond * (this.outsideSystemDown() ? this.scenario.outage.burstFactor : 1)
    );
  }
}
