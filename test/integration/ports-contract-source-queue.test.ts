/**
 * The consumer's SourceQueuePort (lambdas/ports/consumer-ports.ts) as a contract, written once and run twice:
 * against the in-memory world that drives the fast orchestration tests (sim/world) and against
 * the real adapters over the local AWS. The world is worth its speed only while it keeps the
 * services' semantics (conditional writes that return the item as it was, create-once objects,
 * idempotent execution names, receipt handles), so every case must pass on both. Where moto itself
 * departs from AWS's documented behaviour, the case runs there as `it.fails` (see `departures`):
 * the departure stays visible, and the day moto is fixed the case says so.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { SourceQueueError } from '../../lambdas/ports/errors';
import { onEveryPortsWorld, refusal, rejectionOf } from './support/ports-contract';
import type { PortsUnderTest } from './support/ports-worlds';

onEveryPortsWorld((world, contract) => {
  let ports: PortsUnderTest;
  beforeEach(async () => {
    ports = await world.fresh();
  });

  describe('SourceQueuePort.delay', () => {
    it('given an in-flight message, when delayed on its latest handle, then it stays hidden; a delay of 0 returns it at once', async () => {
      // Prepare
      await ports.arrange.sendMessage('m');
      const handle = String(await ports.arrange.receive(30));

      // Act
      await ports.queue.delay(handle, 600);
      const hidden = await ports.arrange.receive(30);
      await ports.queue.delay(handle, 0);
      const returned = await ports.arrange.receive(30);

      // Assess
      expect(hidden).toBeUndefined();
      expect(returned).toEqual(expect.any(String));
    });

    it('given delays SQS would refuse, when asked, then they are clamped: too long hides, negative or NaN returns at once', async () => {
      // Prepare
      await ports.arrange.sendMessage('m');
      const first = String(await ports.arrange.receive(30));

      // Act
      await ports.queue.delay(first, 99_999);
      const hidden = await ports.arrange.receive(30);
      await ports.queue.delay(first, -5);
      const second = String(await ports.arrange.receive(30));
      await ports.queue.delay(second, Number.NaN);
      const third = await ports.arrange.receive(30);

      // Assess
      expect(hidden).toBeUndefined();
      expect(third).toEqual(expect.any(String));
    });

    it('given a handle no receive issued, or one of a deleted message, when delayed, then SourceQueueError', async () => {
      // Prepare
      await ports.arrange.sendMessage('m');
      const handle = String(await ports.arrange.receive(30));
      await ports.arrange.deleteMessage(handle);

      // Act
      const deleted = await rejectionOf(ports.queue.delay(handle, 10));
      const invented = await rejectionOf(ports.queue.delay('not-a-receipt-handle', 10));

      // Assess
      expect(deleted).toBeInstanceOf(SourceQueueError);
      expect(invented).toBeInstanceOf(SourceQueueError);
    });

    contract('stale-receipt-handle')(
      'given a message received again, when delayed on the older handle, then SourceQueueError and it stays in flight',
      async () => {
        // Prepare
        await ports.arrange.sendMessage('m');
        const older = String(await ports.arrange.receive(30));
        await ports.queue.delay(older, 0);
        const latest = await ports.arrange.receive(30);

        // Act
        const refused = ports.queue.delay(older, 0);

        // Assess: had the older handle won, the message would be visible to another receive.
        await refusal(refused, SourceQueueError);
        expect(latest).toEqual(expect.any(String));
        expect(await ports.arrange.receive(30)).toBeUndefined();
      },
    );

    contract('visible-message-handle')(
      'given a message visible again, when delayed on its latest handle, then SourceQueueError (not in flight)',
      async () => {
        // Prepare
        await ports.arrange.sendMessage('m');
        const handle = String(await ports.arrange.receive(30));
        await ports.queue.delay(handle, 0);

        // Act
        const refused = ports.queue.delay(handle, 600);

        // Assess
        await refusal(refused, SourceQueueError);
        expect(await ports.arrange.receive(30)).toEqual(expect.any(String));
      },
    );
  });
});
