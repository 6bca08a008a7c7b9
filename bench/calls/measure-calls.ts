/**
 * AWS calls per message on each path, measured by driving the real consumer
 * (`consumerHandler`) over the in-memory world: every call it makes through a port becomes the
 * requests its adapter would send (aws-requests.ts), counted by the consumer's own CallMeter.
 *
 * Left out: the control snapshot a batch starts from (one BatchGetItem per execution environment
 * per control-cache period, shared by every message of that period, not a cost of one message).
 * Counted: the fresh one a failure reads before its event (outage-watch.ts), its message's own.
 */
import { type CallCounts, CallMeter, isDynamodbRead } from '../../lambdas/consumer/call-meter';
import type { FaultPoint } from '../../sim/faults/fault-points';
import { drive } from '../../sim/world/drive';
import { OutsideSystem, scriptedProcessor } from '../../sim/world/scripted-processor';
import { World } from '../../sim/world/world';
import { AWS_REQUESTS, type AwsRequest, type Service } from './aws-requests';
import { type MessagePath, PATH_NAMES, PATHS, type PathName } from './paths';

const SERVICES: readonly Service[] = ['dynamodb', 's3', 'sqs', 'sfn'];
const MESSAGE_ID = 'bench-message';
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

export async function measureAllPaths(): Promise<Record<PathName, PathCalls>> {
  const entries: [PathName, PathCalls][] = [];
  for (const name of PATH_NAMES) entries.push([name, await measurePath(name, PATHS[name])]);
  return Object.fromEntries(entries) as Record<PathName, PathCalls>;
}

/** One message down one path in a fresh world; the calls of its measured deliveries. */
export async function measurePath(name: string, path: MessagePath): Promise<PathCalls> {
  const meter = new CallMeter();
  const feed = meterFeed(meter);
  const units: DynamodbUnits = { write: 0, read: 0 };
  let measuring = false;
  /** A snapshot was read and not yet told apart: the next call says whose it was. */
  let snapshotHeld = false;
  const count = (request: AwsRequest) => {
    feed(request);
    if (measuring && request.service === 'dynamodb') {
      units[isDynamodbRead(request.command) ? 'read' : 'write'] += request.units ?? 1;
    }
  };
  const outside = new OutsideSystem();
  const world: World = new World({
    random: () => 0.5,
    faultFor: (call) => {
      if (call.point === 'control.snapshot') {
        snapshotHeld = true;
        return undefined;
      }
      if (snapshotHeld && FAILURE_WINDOW_POINTS.has(call.point)) {
        for (const request of AWS_REQUESTS['control.snapshot']) count(request);
      }
      snapshotHeld = false;
      for (const request of AWS_REQUESTS[call.point]) count(request);
      return undefined;
    },
    processorFor: (env) =>
      scriptedProcessor(
        env,
        world,
        outside,
        (message) => path.attempts[Math.min(message.attempt, path.attempts.length) - 1] ?? [],
      ),
  });
  const send = () => world.queue.send({ messageId: MESSAGE_ID, body: '{"orderId":"o-1"}' });
  if (path.completedBefore) {
    // Outside `measure`: the meter charges nothing to the first, healthy delivery.
    send();
    await drive(world);
  }
  send();
  measuring = true;
  const { calls } = await meter.measure(() => drive(world));
  checkEnding(name, path, world);
  return { calls, units };
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

function checkEnding(name: string, path: MessagePath, world: World): void {
  const item = world.ledger.get(MESSAGE_ID);
  const reasons = [...world.quarantine.records.values()].map((record) => record.reason);
  const expected = path.ends;
  const ended = { state: item?.state, charged: item?.charged, reason: reasons[0] };
  if (
    ended.state !== expected.state ||
    ended.charged !== expected.charged ||
    ended.reason !== expected.reason ||
    world.queue.messages.size > 0
  ) {
    throw new Error(
      `bench path ${name} ended as ${JSON.stringify(ended)} with ${world.queue.messages.size} message(s) ` +
        `left, not as ${JSON.stringify(expected)}`,
    );
  }
}
