/**
 * Swarm testing: each schedule draws its own weight for each kind of trouble, so a schedule may
 * have no crashes at all and many throttles, or only timeouts after sending. A fixed mix spreads
 * every schedule over every kind; rare combinations then almost never get a whole schedule of
 * their own (Groce et al., "Swarm Testing", ISSTA 2012; TigerBeetle's VOPR draws its fault
 * probabilities per seed the same way).
 */
import type { Draw } from './prng';

/** A kind's factor: absent from this schedule, rare, as usual, or dominant. */
const FACTORS: readonly (readonly [number, number])[] = [
  [0, 1],
  [1 / 3, 1],
  [1, 2],
  [3, 1],
];

export class Swarm {
  private readonly factors = new Map<string, number>();

  constructor(private readonly draw: Draw) {}

  /**
   * The choices with this schedule's factor on each (drawn the first time a choice is seen); the
   * base weights when every factor came out 0, so something can always be drawn. `dimension`
   * names what is chosen (a fault's kind, a script's ending), so equal names in two dimensions
   * keep factors of their own.
   */
  weigh<T>(dimension: string, choices: readonly (readonly [T, number])[]): (readonly [T, number])[] {
    const weighed = choices.map(
      ([value, weight]) => [value, weight * this.factor(`${dimension}:${String(value)}`)] as const,
    );
    return weighed.some(([, weight]) => weight > 0) ? weighed : [...choices];
  }

  private factor(name: string): number {
    let factor = this.factors.get(name);
    if (factor === undefined) {
      factor = this.draw.weighted(FACTORS);
      this.factors.set(name, factor);
    }
    return factor;
  }
}
