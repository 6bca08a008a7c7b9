import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  backstopQuarantineId,
  outcomeUnknownExecutionName,
  pauseExecutionName,
  quarantineId,
} from '../../lambdas/core/ids';

/** Step Functions: execution names of 1..80 characters from this set. */
const EXECUTION_NAME = /^[A-Za-z0-9_-]{1,80}$/;

describe('ids', () => {
  it.each([
    ['M3, first generation, 3 attempts', 'M3', 0, 3, 'q-67629a19d082ed3a-g0-a3'],
    ['a business key after a replay', 'order-17', 1, 4, 'q-72a90ea3da8b5dd0-g1-a4'],
  ])('quarantineId: given %s', (_name, key, generation, attempts, expected) => {
    expect(quarantineId(key, generation, attempts)).toBe(expected);
  });

  it('given the same message, generation and attempts, then the id is the same (a retry finishes, not duplicates)', () => {
    expect(quarantineId('M3', 0, 3)).toBe(quarantineId('M3', 0, 3));
    expect(quarantineId('M3', 0, 3)).not.toBe(quarantineId('M3', 0, 4));
    expect(quarantineId('M3', 0, 3)).not.toBe(quarantineId('M3', 1, 3));
  });

  it("backstopQuarantineId: q-backstop- and the first 32 hex of the message id's sha256 (docs/design.md)", () => {
    expect(backstopQuarantineId('M3')).toBe('q-backstop-67629a19d082ed3a6a50d4e4ff97d02f');
  });

  it('names the executions as docs/design.md says', () => {
    expect(outcomeUnknownExecutionName('q-67629a19d082ed3a-g0-a1')).toBe('ou-q-67629a19d082ed3a-g0-a1');
    expect(pauseExecutionName(7)).toBe('pause-7');
  });

  it('always produces valid Step Functions execution names, whatever the key', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        fc.nat({ max: Number.MAX_SAFE_INTEGER }),
        fc.nat({ max: Number.MAX_SAFE_INTEGER }),
        (key, generation, attempts) => {
          const id = quarantineId(key, generation, attempts);
          expect(outcomeUnknownExecutionName(id)).toMatch(EXECUTION_NAME);
          expect(pauseExecutionName(generation)).toMatch(EXECUTION_NAME);
        },
      ),
    );
  });
});
