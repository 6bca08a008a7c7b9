/**
 * The pause state machine (lib/operations/pause-state-machine.ts), as a model over the
 * world's control table and executions. Each RUNNING `pause-<epoch>` execution: records the
 * breaker open and disables the mapping; a stop (the breaker item's, never the input's: a run
 * of an epoch nobody tripped fails) then waits for an operator's
 * resume; otherwise it cools down, goes half-open and lets one probe footprint through
 * (batch 1), then reads the probe counters: failures and no success, or an own-table failure,
 * reopen with the cool-down doubled (capped); a success or silence restores the mapping and
 * closes the breaker. Every
 * write is conditioned on the epoch: an execution that finds a newer epoch steps aside
 * ("Superseded"). At each checkpoint (after the disable, after the cool-down, after the probe
 * window) a run reads the episode's answer (`operatorAction`): `resume` restores and closes; a
 * stop's wait refuses to begin once a resume is recorded. Before a probe and before a restore, a
 * stop request no resume lifted sends the run to the operator's wait instead (forgetting an
 * answer given before it), whatever the breaker item says.
 * The mapping is state of its own, apart from the runs: a run that fails or is stopped (the
 * campaign's `kill-pause`) leaves it as it was, disabled or at the probe footprint.
 * Left out: the mapping's asynchronous disable (taken as immediate), notifications, `hold`.
 */
import { DEFAULTS } from '../../contract/defaults';
import type { Execution } from '../world/memory-operations';
import type { World } from '../world/world';
import type { Trace } from './trace';

interface Running {
  readonly execution: Execution;
  readonly epoch: number;
  readonly stop: boolean;
  readonly maxCooldown: number;
  readonly probeSeconds: number;
  cooldown: number;
  phase: 'cooling' | 'probing' | 'awaiting-operator';
  /** Epoch ms when the current phase's wait ends. */
  until: number;
}

type MappingState = 'enabled' | 'disabled' | 'probe';
export type RunFailure = 'before-disable' | 'after-disable';

export class PauseModel {
  private readonly running = new Map<string, Running>();
  private mapping: MappingState = 'enabled';
  private runsFail: { readonly until: number; readonly at: RunFailure } = { until: 0, at: 'before-disable' };

  constructor(
    private readonly world: World,
    private readonly firstCooldownSeconds: number,
    private readonly trace: Trace,
  ) {}

  /** Picks up new pause executions and runs every wait that is over by now. */
  tick(): void {
    for (const execution of this.world.operations.executions.values()) {
      if (
        execution.status === 'RUNNING' &&
        execution.input.kind === 'pause' &&
        !this.running.has(execution.name)
      ) {
        this.begin(execution);
      }
    }
    for (const run of [...this.running.values()]) this.advance(run);
  }

  /** The mapping moves to `state`; the trace keeps when (a scale schedule's bound leaves pauses out). */
  private setMapping(state: MappingState): void {
    if (state === this.mapping) return;
    this.mapping = state;
    this.trace.mapping.push({ at: this.world.clock.now(), enabled: state === 'enabled' });
  }

  /** Whether the event source mapping polls at all; a disabled one receives nothing. */
  mappingEnabled(): boolean {
    return this.mapping !== 'disabled';
  }

  /** The mapping at the probe footprint (half-open, or left so by a run that died probing). */
  probing(): boolean {
    return this.mapping === 'probe';
  }

  /** When the next wait ends, if an execution is waiting on time (not on a person). */
  nextTimer(): number | undefined {
    const timers = [...this.running.values()].filter((run) => run.phase !== 'awaiting-operator');
    return timers.length === 0 ? undefined : Math.min(...timers.map((run) => run.until));
  }

  waitsForOperator(): boolean {
    return [...this.running.values()].some((run) => run.phase === 'awaiting-operator');
  }

  /**
   * The task token of a run waiting for the operator, answered with `resume` (cli/commands/
   * breaker.ts); false when no RUNNING run of the breaker's epoch waits.
   */
  answerWaiting(): boolean {
    const epoch = this.world.control.breaker?.record.epoch;
    const run = [...this.running.values()].find(
      (candidate) => candidate.epoch === epoch && candidate.phase === 'awaiting-operator',
    );
    if (run === undefined || run.execution.status !== 'RUNNING') return false;
    this.restore(run, true);
    return true;
  }

  private begin(execution: Execution): void {
    const input = execution.input as {
      epoch: number;
      cooldownSeconds?: number;
      maxCooldownSeconds?: number;
      probeSeconds?: number;
      pollSeconds?: number;
    };
    if (!this.acceptsInput(input)) {
      execution.status = 'FAILED';
      return;
    }
    // ReadBreaker: the run takes stop and reason from the item of its epoch, never the input.
    const tripped =
      this.world.control.garbledBreaker === undefined ? this.world.control.breaker?.record : undefined;
    if (tripped === undefined || tripped.state === 'closed' || tripped.epoch < input.epoch) {
      execution.status = 'FAILED';
      return;
    }
    const run: Running = {
      execution,
      epoch: input.epoch,
      stop: tripped.stop,
      cooldown: input.cooldownSeconds ?? this.firstCooldownSeconds,
      maxCooldown: input.maxCooldownSeconds ?? DEFAULTS.breakerMaxCooldownSeconds,
      probeSeconds: input.probeSeconds ?? DEFAULTS.breakerProbeSeconds,
      phase: 'cooling',
      until: 0,
    };
    if (tripped.epoch > input.epoch) {
      execution.status = 'SUCCEEDED';
      return;
    }
    const failing = this.world.clock.now() < this.runsFail.until ? this.runsFail.at : undefined;
    if (failing === 'before-disable') {
      execution.status = 'FAILED';
      return;
    }
    this.running.set(execution.name, run);
    this.recordOpen(run, this.world.clock.now(), tripped.reason);
    if (failing === 'after-disable') {
      execution.status = 'FAILED';
      this.running.delete(execution.name);
      return;
    }
    // AfterDisable (or the stop's wait, refused once a resume is recorded).
    if (this.running.has(run.execution.name) && this.resumeRecorded()) this.restore(run, true);
  }

  /**
   * CheckPauseInput: the machine fills in the construct's timings for those the input leaves out,
   * then refuses (RejectInput) timings that cannot end, before it reads or changes anything.
   */
  private acceptsInput(input: {
    cooldownSeconds?: number;
    maxCooldownSeconds?: number;
    probeSeconds?: number;
    pollSeconds?: number;
  }): boolean {
    const cooldown = input.cooldownSeconds ?? this.firstCooldownSeconds;
    const {
      maxCooldownSeconds = DEFAULTS.breakerMaxCooldownSeconds,
      probeSeconds = DEFAULTS.breakerProbeSeconds,
      pollSeconds = DEFAULTS.breakerPollSeconds,
    } = input;
    return cooldown >= 1 && probeSeconds >= 1 && pollSeconds >= 1 && maxCooldownSeconds >= cooldown;
  }

  /**
   * Every run that begins in the next `seconds` fails at one step, as a run does whose role
   * lacks a permission or whose calls are throttled: before the mapping is disabled (reading
   * it), or after (publishing the notification). The drain's operator fixes the cause (`clear`).
   */
  failRuns(seconds: number, at: RunFailure): void {
    this.runsFail = { until: this.world.clock.now() + seconds * 1000, at };
  }

  clearRunFailures(): void {
    this.runsFail = { until: 0, at: 'before-disable' };
  }

  private advance(run: Running): void {
    for (let guard = 0; guard < 64 && this.running.has(run.execution.name); guard++) {
      // Failed or stopped: it does nothing more, and leaves the mapping as it was.
      if (run.execution.status !== 'RUNNING') {
        this.running.delete(run.execution.name);
        return;
      }
      if (this.superseded(run)) return;
      if (run.phase === 'awaiting-operator' || this.world.clock.now() < run.until) return;
      // AfterCoolDown and AfterProbe read the operator's action first.
      if (this.resumeRecorded()) this.restore(run, true);
      else if (run.phase === 'cooling') this.probe(run);
      else this.judgeProbe(run);
    }
  }

  private resumeRecorded(): boolean {
    return this.world.control.breaker?.operatorAction === 'resume';
  }

  /** RecordOpen: conditioned on `epoch <= input.epoch`; disables the mapping. */
  private recordOpen(run: Running, at: number, reason?: string): void {
    const control = this.world.control;
    const current = control.breaker?.record;
    if (current !== undefined && current.epoch > run.epoch) {
      this.finish(run);
      return;
    }
    const operatorAction = control.breaker?.operatorAction;
    control.breaker = {
      record: {
        state: 'open',
        reason: reason ?? (current?.state === 'closed' ? 'outage' : (current?.reason ?? 'outage')),
        epoch: run.epoch,
        openedAt: at,
        cooldownSeconds: run.cooldown,
        stop: run.stop,
      },
      probeSuccesses: 0,
      probeFailures: 0,
      ...(operatorAction === undefined ? {} : { operatorAction }),
    };
    this.setMapping('disabled');
    run.phase = run.stop ? 'awaiting-operator' : 'cooling';
    run.until = at + run.cooldown * 1000;
  }

  /** The stop gates (StopGate): a stop request no operator lifted waits for one instead. */
  private stopGate(run: Running): boolean {
    const control = this.world.control;
    if (control.stopInForce() === undefined) return false;
    const breaker = control.breaker;
    if (breaker !== undefined && breaker.record.epoch === run.epoch) {
      const { operatorAction, ...unanswered } = breaker;
      control.breaker = unanswered;
    }
    run.phase = 'awaiting-operator';
    return true;
  }

  private probe(run: Running): void {
    if (!this.stopGate(run)) this.halfOpen(run);
  }

  private restore(run: Running, byOperator: boolean): void {
    if (!this.stopGate(run)) this.close(run, byOperator);
  }

  /** RecordHalfOpen and EnableForProbe, at the end of the cool-down. */
  private halfOpen(run: Running): void {
    const breaker = this.world.control.breaker;
    if (breaker === undefined || breaker.record.state === 'closed') {
      this.finish(run);
      return;
    }
    const { reason, openedAt, cooldownSeconds } = breaker.record;
    const { operatorAction } = breaker;
    this.world.control.breaker = {
      record: {
        state: 'half-open',
        reason,
        epoch: run.epoch,
        openedAt,
        cooldownSeconds,
        stop: false,
        probeSuccesses: 0,
        probeFailures: 0,
        probeRepeatFailures: 0,
      },
      probeSuccesses: 0,
      probeFailures: 0,
      probeRepeatFailures: 0,
      probeOwnFailures: 0,
      ...(operatorAction === undefined ? {} : { operatorAction }),
    };
    this.setMapping('probe');
    run.phase = 'probing';
    run.until += run.probeSeconds * 1000;
  }

  /**
   * JudgeProbe: failures and no success, or any own-table failure, reopen with the cool-down
   * doubled (capped); else restore and close.
   */
  private judgeProbe(run: Running): void {
    const { probeFailures = 0, probeSuccesses = 0, probeOwnFailures = 0 } = this.world.control.breaker ?? {};
    if (probeOwnFailures === 0 && (probeFailures === 0 || probeSuccesses > 0)) {
      this.restore(run, false);
      return;
    }
    run.cooldown = Math.min(run.cooldown * 2, run.maxCooldown);
    this.recordOpen(run, run.until);
  }

  /**
   * RestoreMapping, then RecordClosed (conditioned on the epoch; it removes the operator's
   * action); the next episode starts from the first cool-down. A newer epoch's run owns the
   * mapping: this one disables it again and steps aside.
   */
  private close(run: Running, byOperator: boolean): void {
    const breaker = this.world.control.breaker;
    this.setMapping(breaker !== undefined && breaker.record.epoch > run.epoch ? 'disabled' : 'enabled');
    if (breaker !== undefined && breaker.record.epoch === run.epoch) {
      this.trace.closings.push({ seq: this.trace.next(), byOperator });
      this.world.control.breaker = {
        record: {
          state: 'closed',
          epoch: run.epoch,
          cooldownSeconds: this.firstCooldownSeconds,
          stop: false,
        },
        probeSuccesses: 0,
        probeFailures: 0,
      };
    }
    this.finish(run);
  }

  private superseded(run: Running): boolean {
    const epoch = this.world.control.breaker?.record.epoch;
    if (epoch === undefined || epoch <= run.epoch) return false;
    this.finish(run);
    return true;
  }

  private finish(run: Running): void {
    run.execution.status = 'SUCCEEDED';
    this.running.delete(run.execution.name);
  }
}
