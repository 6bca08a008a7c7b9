/**
 * The consumer's OperationsPort (lambdas/ports/consumer-ports.ts) as a contract, written once and run twice:
 * against the in-memory world that drives the fast orchestration tests (sim/world) and against
 * the real adapters over the local AWS. The world is worth its speed only while it keeps the
 * services' semantics (conditional writes that return the item as it was, create-once objects,
 * idempotent execution names, receipt handles), so every case must pass on both. Where moto itself
 * departs from AWS's documented behaviour, the case runs there as `it.fails` (see `departures`):
 * the departure stays visible, and the day moto is fixed the case says so.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { newKey, onEveryPortsWorld } from './support/ports-contract';
import type { PortsUnderTest } from './support/ports-worlds';

onEveryPortsWorld((world) => {
  let ports: PortsUnderTest;
  beforeEach(async () => {
    ports = await world.fresh();
  });

  describe('OperationsPort', () => {
    it('given an outcome-unknown execution, when started again, then the same input answers as the first; another input or a closed one starts nothing', async () => {
      // Prepare
      const quarantineId = newKey('q');
      const input = { quarantineId, messageKey: 'order-17' };

      // Act
      const first = await ports.operations.startOutcomeUnknown(input);
      const again = await ports.operations.startOutcomeUnknown(input);
      const otherInput = await ports.operations.startOutcomeUnknown({ ...input, messageKey: 'order-18' });
      if (!first.started) throw new Error('the first start did not start');
      await ports.arrange.finishExecution(first.executionArn);
      const afterClose = await ports.operations.startOutcomeUnknown(input);

      // Assess
      expect(first.executionArn).toMatch(new RegExp(`:ou-${quarantineId}$`));
      expect(again).toStrictEqual(first);
      expect([otherInput, afterClose]).toStrictEqual([{ started: false }, { started: false }]);
    });

    it('given a running pause of an epoch, when started again, then one run per epoch whatever the input', async () => {
      // Prepare
      const epoch = 1 + Math.floor(Math.random() * 1_000_000_000);
      const input = { epoch, reason: 'outage', stop: false, cooldownSeconds: 30 };

      // Act
      const first = await ports.operations.startPause(input);
      const again = await ports.operations.startPause(input);
      const otherInput = await ports.operations.startPause({
        ...input,
        reason: 'quarantine-unwritable',
        stop: true,
      });
      const noTimings = await ports.operations.startPause({ epoch, reason: 'outage', stop: false });

      // Assess
      if (!first.started) throw new Error('the first start did not start');
      expect(first.executionArn).toMatch(new RegExp(`:pause-${epoch}$`));
      expect(again).toStrictEqual(first);
      expect([otherInput, noTimings]).toStrictEqual([{ started: false }, { started: false }]);
    });

    it('given the run of an epoch was aborted, when the pause starts again, then the next run drives it, once', async () => {
      // Prepare: an open breaker must always have a run driving it back.
      const epoch = 1 + Math.floor(Math.random() * 1_000_000_000);
      const input = { epoch, reason: 'outage', stop: false };
      const first = await ports.operations.startPause(input);
      if (!first.started) throw new Error('the first start did not start');
      await ports.arrange.finishExecution(first.executionArn);

      // Act
      const next = await ports.operations.startPause(input);
      const again = await ports.operations.startPause(input);
      const otherInput = await ports.operations.startPause({ ...input, stop: true });

      // Assess
      if (!next.started) throw new Error('the next run did not start');
      expect(next.executionArn).toMatch(new RegExp(`:pause-${epoch}-r2$`));
      expect(again).toStrictEqual(next);
      expect(otherInput).toStrictEqual({ started: false });
    });
  });
});
