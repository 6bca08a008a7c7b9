/**
 * The consumer's port calls as the AWS requests its adapters would send (aws-requests.ts),
 * counted by the consumer's own CallMeter, with the DynamoDB units they are billed. A world hands
 * every port call to `faultFor`; what `measure` runs is counted.
 *
 * Left out: the control snapshot a batch starts from (one BatchGetItem per execution environment
 * per control-cache period, shared by every message of that period, not a cost of one message).
 * Counted: the fresh one a failure reads before its event (outage-watch.ts), its message's own.
 */
import { type CallCounts, CallMeter, isDynamodbRead } from '../../lambdas/consumer/call-meter';
import type { FaultPoint } from '../../sim/faults/fault-points';
import type { FaultCall } from '../../sim/faults/inject';
import { AWS_REQUESTS, type AwsRequest, type Service } from './aws-requests';

const SERVICES: readonly Service[] = ['dynamodb', 's3', 'sqs', 'sfn'];
/** What follows a failure's fresh read: its event, or (the breaker found open) the window. */
const FAILURE_WINDOW_POINTS: ReadonlySet<FaultPoint> = new Set([
  'control.recordFailureEvent',
  'control.failuresSince',
]);

type MeterStep = (
  next: () => Promise<unknown>,
  context: { commandName: string },
) => (args: unknown) => Promise<unknown>;

/** DynamoDB capacity units billed: a request is one of its kind, a transaction more (aws-requests.ts). */
export interface DynamodbUnits {
  write: number;
  read: number;
}

export interface PathCalls {
  readonly calls: CallCounts;
  readonly units: DynamodbUnits;
}

export class PortRequests {
  private readonly meter = new CallMeter();
  private readonly feed = meterFeed(this.meter);
  private units: DynamodbUnits = { write: 0, read: 0 };
  private measuring = false;
  /** A snapshot was read and not yet told apart: the next call says whose it was. */
  private snapshotHeld = false;

  /** The world's fault hook: counts the call's requests and injects nothing. */
  readonly faultFor = (call: FaultCall): undefined => {
    if (call.point === 'control.snapshot') {
      this.snapshotHeld = true;
      return undefined;
    }
    if (this.snapshotHeld && FAILURE_WINDOW_POINTS.has(call.point)) {
      for (const request of AWS_REQUESTS['control.snapshot']) this.count(request);
    }
    this.snapshotHeld = false;
    for (const request of AWS_REQUESTS[call.point]) this.count(request);
    return undefined;
  };

  /** Runs `work`; the requests made inside it, and their units. Calls outside are not counted. */
  async measure(work: () => Promise<unknown>): Promise<PathCalls> {
    this.units = { write: 0, read: 0 };
    this.measuring = true;
    try {
      const { calls } = await this.meter.measure(work);
      return { calls, units: this.units };
    } finally {
      this.measuring = false;
    }
  }

  private count(request: AwsRequest): void {
    this.feed(request);
    if (this.measuring && request.service === 'dynamodb') {
      this.units[isDynamodbRead(request.command) ? 'read' : 'write'] += request.units ?? 1;
    }
  }
}

/**
 * The meter counts in a step it adds to an SDK client; here each port call's requests pass
 * through that same step, so reads and writes are told apart by the meter's own rule.
 */
function meterFeed(meter: CallMeter): (request: AwsRequest) => void {
  const steps = new Map<Service, MeterStep>();
  for (const service of SERVICES) {
    meter.attach(service, {
      middlewareStack: { add: (middleware) => steps.set(service, middleware as unknown as MeterStep) },
    });
  }
  return (request) => {
    const step = steps.get(request.service);
    if (step === undefined) throw new Error(`no meter step for ${request.service}`);
    void step(async () => undefined, { commandName: request.command })(undefined);
  };
}
