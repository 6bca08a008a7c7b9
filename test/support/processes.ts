/**
 * Finding what a command started, to show it stopped everything: its processes inherit a mark in
 * their environment (a variable the test sets), which /proc shows (Linux).
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Live processes whose environment holds `mark` (a zombie waiting for its reaper is dead). */
export function processesMarked(mark: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
        return state !== 'Z' && readFileSync(`/proc/${pid}/environ`, 'utf8').includes(mark);
      } catch {
        return false; // gone meanwhile, or not ours to read
      }
    })
    .map(Number);
}

/** Polls: a killed process takes a moment to go on a loaded machine. */
export async function leftAfter(mark: string, ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const left = processesMarked(mark);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Live processes of process group `pgid`: all a detached child started that did not leave it. */
export function processesInGroup(pgid: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        // Fields after the command's closing parenthesis: state, ppid, pgrp, ...
        const [state, , pgrp] = (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] ?? '').split(' ');
        return state !== 'Z' && Number(pgrp) === pgid;
      } catch {
        return false;
      }
    })
    .map(Number);
}
