/**
 * The consumer's QuarantineStorePort (lambdas/ports/consumer-ports.ts) as a contract, written once and run twice:
 * against the in-memory world that drives the fast orchestration tests (sim/world) and against
 * the real adapters over the local AWS. The world is worth its speed only while it keeps the
 * services' semantics (conditional writes that return the item as it was, create-once objects,
 * idempotent execution names, receipt handles), so every case must pass on both. Where moto itself
 * departs from AWS's documented behaviour, the case runs there as `it.fails` (see `departures`):
 * the departure stays visible, and the day moto is fixed the case says so.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { quarantineObjectKeys } from '../../lambdas/adapters/quarantine-writer';
import { QuarantineWriteError } from '../../lambdas/ports/errors';
import { newKey, newRecord, onEveryPortsWorld, refusal } from './support/ports-contract';
import type { PortsUnderTest } from './support/ports-worlds';

onEveryPortsWorld((world) => {
  let ports: PortsUnderTest;
  beforeEach(async () => {
    ports = await world.fresh();
  });

  describe('QuarantineStorePort', () => {
    it('given content stored, when put again with other bytes, then the first stays; bodyBytes is the UTF-8 length', async () => {
      // Prepare
      const id = newKey('q');
      const body = 'Grüße 😀';

      // Act
      const first = await ports.quarantine.putContent(id, { body, envelope: { messageId: 'm-1' } });
      const second = await ports.quarantine.putContent(id, { body: 'other', envelope: { messageId: 'm-2' } });

      // Assess: 8 UTF-16 units, 12 bytes.
      expect(first).toStrictEqual({ ...quarantineObjectKeys(id), bodyBytes: 12 });
      expect(second).toStrictEqual({ ...quarantineObjectKeys(id), bodyBytes: 5 });
      expect(await ports.arrange.contentOf(id)).toStrictEqual({ body, envelope: '{"messageId":"m-1"}' });
    });

    it('given a record written, when written again, then created is false and the first record stays', async () => {
      // Prepare
      const id = newKey('q');

      // Act
      const first = await ports.quarantine.putRecord(newRecord(id));
      const second = await ports.quarantine.putRecord(
        newRecord(id, { status: 'awaiting-operator', messageId: 'm-2' }),
      );

      // Assess
      expect([first, second]).toStrictEqual([{ created: true }, { created: false }]);
      expect(await ports.arrange.recordOf(id)).toStrictEqual({ status: 'open', messageId: 'm-1' });
    });

    it('issue 19: given a record whose item would pass 400 KB, then its transaction is refused as DynamoDB refuses it and nothing is written', async () => {
      // Prepare: the record and its count are one TransactWriteItems; each item in it keeps the
      // 400 KB item limit. A record with a stage of 399,000 bytes fits; 410,000 do not.
      const [fits, tooBig] = [newKey('q-fits'), newKey('q-too-big')];
      const fitted = await ports.quarantine.putRecord(newRecord(fits, { stage: 's'.repeat(399_000) }));

      // Act
      const error = await refusal(
        ports.quarantine.putRecord(newRecord(tooBig, { stage: 's'.repeat(410_000) })),
        QuarantineWriteError,
      );

      // Assess
      expect(fitted).toStrictEqual({ created: true });
      expect((error.cause as Error).name).toBe('ValidationException');
      expect(await ports.arrange.recordOf(tooBig)).toBeUndefined();
    });

    it('given open, awaiting and settled records, when counted, then only open and awaiting-operator count', async () => {
      // Prepare
      const empty = await ports.quarantine.openRecordsAtLeast(1);
      const [open, awaiting, resolved, replayed] = ['open', 'awaiting', 'resolved', 'replayed'].map(newKey);
      await ports.quarantine.putRecord(newRecord(open));
      await ports.quarantine.putRecord(newRecord(awaiting, { status: 'awaiting-operator' }));
      await ports.quarantine.putRecord(newRecord(resolved));
      await ports.quarantine.putRecord(newRecord(replayed));
      await ports.arrange.setRecordStatus(resolved, 'resolved');
      await ports.arrange.setRecordStatus(replayed, 'replayed');

      // Act
      const atLeastTwo = await ports.quarantine.openRecordsAtLeast(2);
      const atLeastThree = await ports.quarantine.openRecordsAtLeast(3);

      // Assess
      expect([empty, atLeastTwo, atLeastThree]).toStrictEqual([false, true, false]);
    });

    it('given a record written again (a retried quarantine), then it is counted once', async () => {
      // Prepare
      await ports.quarantine.openRecordsAtLeast(1);
      const id = newKey('q');

      // Act
      await ports.quarantine.putRecord(newRecord(id));
      await ports.quarantine.putRecord(newRecord(id));
      await ports.quarantine.putRecord(newRecord(newKey('q'), { status: 'awaiting-operator' }));

      // Assess
      expect(await ports.arrange.openRecordCount()).toBe(2);
    });

    it('given records leaving open and awaiting-operator, then each is uncounted once, however often it moves on', async () => {
      // Prepare
      const [open, awaiting] = ['open', 'awaiting'].map(newKey);
      await ports.quarantine.putRecord(newRecord(open));
      await ports.quarantine.putRecord(newRecord(awaiting, { status: 'awaiting-operator' }));
      await ports.quarantine.putRecord(newRecord(newKey('stays')));

      // Act
      await ports.arrange.setRecordStatus(open, 'awaiting-operator');
      const between = await ports.arrange.openRecordCount();
      await ports.arrange.setRecordStatus(open, 'resolved');
      await ports.arrange.setRecordStatus(open, 'resolved');
      await ports.arrange.setRecordStatus(awaiting, 'replayed');
      await ports.arrange.setRecordStatus(awaiting, 'resolved');

      // Assess
      expect([between, await ports.arrange.openRecordCount()]).toStrictEqual([3, 1]);
      expect(await ports.quarantine.openRecordsAtLeast(2)).toBe(false);
    });

    it('given no counter (a table from before it), when capacity is asked, then the open records are counted once and counted on from there', async () => {
      // Prepare
      for (const id of ['a', 'b', 'c'].map(newKey)) await ports.quarantine.putRecord(newRecord(id));
      const settled = newKey('settled');
      await ports.quarantine.putRecord(newRecord(settled));
      await ports.arrange.setRecordStatus(settled, 'resolved');
      await ports.arrange.removeOpenRecordCount();

      // Act
      const atLeastThree = await ports.quarantine.openRecordsAtLeast(3);
      const established = await ports.arrange.openRecordCount();
      await ports.quarantine.putRecord(newRecord(newKey('d')));

      // Assess
      expect([atLeastThree, established, await ports.arrange.openRecordCount()]).toStrictEqual([true, 3, 4]);
    });

    it('given no counter, when a record is written first, then the records before it are counted too', async () => {
      // Prepare
      for (const id of ['a', 'b'].map(newKey)) await ports.quarantine.putRecord(newRecord(id));
      await ports.arrange.removeOpenRecordCount();

      // Act
      await ports.quarantine.putRecord(newRecord(newKey('c')));

      // Assess
      expect(await ports.arrange.openRecordCount()).toBe(3);
    });
  });
});
