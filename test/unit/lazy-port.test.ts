/**
 * consumer/lazy-port.ts: the rare ports' adapters are made on their first call, once, and a load
 * that failed is tried again by the next call.
 */
import { describe, expect, it } from 'vitest';
import { lazyPort, type PortMethods } from '../../lambdas/consumer/lazy-port';
import { QuarantineWriteError } from '../../lambdas/ports/errors';

interface Greeter {
  greet(name: string): Promise<string>;
  fail(): Promise<void>;
}

const GREETER_METHODS: PortMethods<Greeter> = { greet: true, fail: true };

class PoliteGreeter implements Greeter {
  private readonly salutation = 'hello';
  async greet(name: string): Promise<string> {
    return `${this.salutation} ${name}`;
  }
  async fail(): Promise<void> {
    throw new RangeError('the adapter refused');
  }
}

const failed = (cause: unknown) => new QuarantineWriteError('the greeter could not be loaded', { cause });

/** A load that counts its calls, failing the first `failures` of them. */
function countingLoad(failures = 0) {
  const loads = { count: 0 };
  const load = async (): Promise<Greeter> => {
    loads.count += 1;
    if (loads.count <= failures) throw new Error(`chunk missing (load ${loads.count})`);
    return new PoliteGreeter();
  };
  return { loads, load };
}

describe('lazyPort', () => {
  it('given no call yet, then nothing is loaded', () => {
    // Prepare
    const { loads, load } = countingLoad();
    // Act
    lazyPort(GREETER_METHODS, load, failed);
    // Assess
    expect(loads.count).toBe(0);
  });

  it('given calls at once and after, then one load serves them all, with their arguments and the adapter as `this`', async () => {
    // Prepare
    const { loads, load } = countingLoad();
    const port = lazyPort(GREETER_METHODS, load, failed);
    // Act
    const first = await Promise.all([port.greet('ada'), port.greet('grace')]);
    const later = await port.greet('linus');
    // Assess
    expect([...first, later]).toEqual(['hello ada', 'hello grace', 'hello linus']);
    expect(loads.count).toBe(1);
  });

  it("given a load that fails, then the call fails with the port's error naming it, and the next call loads again", async () => {
    // Prepare
    const { loads, load } = countingLoad(1);
    const port = lazyPort(GREETER_METHODS, load, failed);
    // Act
    const refused = await port.greet('ada').catch((error: unknown) => error);
    const answered = await port.greet('ada');
    // Assess
    expect(refused).toBeInstanceOf(QuarantineWriteError);
    expect((refused as Error).message).toBe('the greeter could not be loaded');
    expect(((refused as Error).cause as Error).message).toBe('chunk missing (load 1)');
    expect(answered).toBe('hello ada');
    expect(loads.count).toBe(2);
  });

  it('given an adapter that refuses, then its own error reaches the caller unchanged and the adapter is kept', async () => {
    // Prepare
    const { loads, load } = countingLoad();
    const port = lazyPort(GREETER_METHODS, load, failed);
    // Act
    const refused = await port.fail().catch((error: unknown) => error);
    // Assess
    expect(refused).toBeInstanceOf(RangeError);
    expect(await port.greet('ada')).toBe('hello ada');
    expect(loads.count).toBe(1);
  });
});
