/**
 * An outage of the outside system, played on every instance given at once: each answers 503
 * from the start until `seconds` later, then 200 again.
 */
import type { OutsideSystem } from '../../local/outside-system';

export interface DependencyOutage {
  readonly downAt: number;
  /** Resolves with the time (epoch ms) the outside systems answer 200 again. */
  readonly back: Promise<number>;
  /** Ends the outage now if it is still on (a run that failed). */
  cancel(): void;
}

export function playOutage(systems: readonly OutsideSystem[], seconds: number): DependencyOutage {
  for (const system of systems) system.setStatus(503);
  const downAt = Date.now();
  let end = () => {};
  const back = new Promise<number>((resolve) => {
    const timer = setTimeout(() => end(), seconds * 1000);
    end = () => {
      clearTimeout(timer);
      for (const system of systems) system.setStatus(200);
      resolve(Date.now());
    };
  });
  return { downAt, back, cancel: () => end() };
}
