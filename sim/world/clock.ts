/** Virtual time for the in-memory world: it moves only when told to. */
export class Clock {
  constructor(private current: number = Date.UTC(2026, 0, 1)) {}

  now(): number {
    return this.current;
  }

  date(): Date {
    return new Date(this.current);
  }

  advance(ms: number): void {
    this.current += Math.max(0, ms);
  }

  /** Moves to `at` if that is later; time never runs backwards. */
  advanceTo(at: number): void {
    this.current = Math.max(this.current, at);
  }
}
