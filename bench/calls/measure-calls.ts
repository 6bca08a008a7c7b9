/**
 * AWS calls per message on each path, measured by driving the real consumer
 * (`consumerHandler`) over the in-memory world: every call it makes through a port becomes the
 * requests its adapter would send, counted by the consumer's own CallMeter (port-requests.ts,
 * which says what is left out).
 */
import { drive } from '../../sim/world/drive';
import { OutsideSystem, scriptedProcessor } from '../../sim/world/scripted-processor';
import { World } from '../../sim/world/world';
import { type MessagePath, PATH_NAMES, PATHS, type PathName } from './paths';
import { type PathCalls, PortRequests } from './port-requests';

export type { DynamodbUnits, PathCalls } from './port-requests';

const MESSAGE_ID = 'bench-message';

export async function measureAllPaths(): Promise<Record<PathName, PathCalls>> {
  const entries: [PathName, PathCalls][] = [];
  for (const name of PATH_NAMES) entries.push([name, await measurePath(name, PATHS[name])]);
  return Object.fromEntries(entries) as Record<PathName, PathCalls>;
}

/** One message down one path in a fresh world; the calls of its measured deliveries. */
export async function measurePath(name: string, path: MessagePath): Promise<PathCalls> {
  const requests = new PortRequests();
  const outside = new OutsideSystem();
  const world: World = new World({
    random: () => 0.5,
    faultFor: requests.faultFor,
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
    // Outside `measure`: nothing is charged to the first, healthy delivery.
    send();
    await drive(world);
  }
  send();
  const measured = await requests.measure(() => drive(world));
  checkEnding(name, path, world);
  return measured;
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
