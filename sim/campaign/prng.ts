/**
 * The campaign's only source of randomness: mulberry32, a 32-bit PRNG small enough to read and
 * fast enough for millions of draws. The same seed gives the same schedules, the same jitter and
 * the same shrinking, on every machine (no Math.random, no wall clock anywhere in the campaign).
 */

export type Random = () => number;

/** Uniform in [0, 1) from a 32-bit seed. */
export function mulberry32(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A schedule's own seed from the campaign seed and its index: schedules are independent. */
export function scheduleSeed(campaignSeed: number, index: number): number {
  // Each side is mixed before they meet, so (seed, index) and (index, seed) differ.
  return fmix32(fmix32(campaignSeed ^ 0x9e3779b9) ^ fmix32(index + 0x632be5ab));
}

/** MurmurHash3's finaliser: every input bit flips about half of the output bits. */
function fmix32(value: number): number {
  let h = value >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/** Draws over a Random, named for what a generator asks. */
export class Draw {
  constructor(readonly random: Random) {}

  /** An integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.random() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.random() < probability;
  }

  pick<T>(values: readonly T[]): T {
    return values[Math.floor(this.random() * values.length)];
  }

  /** One of the values, each with its weight. */
  weighted<T>(choices: readonly (readonly [T, number])[]): T {
    const total = choices.reduce((sum, [, weight]) => sum + weight, 0);
    let roll = this.random() * total;
    for (const [value, weight] of choices) {
      roll -= weight;
      if (roll < 0) return value;
    }
    return choices[choices.length - 1][0];
  }
}
