/**
 * Finding what a command started, to show that it stopped everything (Linux, from /proc): by its
 * process group, or by a mark in the environment (a variable the test sets, which children
 * inherit and keep when they leave the group).
 */
import { readdirSync, readFileSync } from 'node:fs';

interface Stat {
  readonly name: string;
  readonly state: string;
  readonly pgrp: number;
}

/** /proc/PID/stat's fields; undefined when the process is gone. Its name may hold spaces and ')'. */
function statOf(pid: string): Stat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const end = stat.lastIndexOf(')');
    const [state = '', , pgrp] = stat.slice(end + 2).split(' ');
    return { name: stat.slice(stat.indexOf('(') + 1, end), state, pgrp: Number(pgrp) };
  } catch {
    return undefined; // ended meanwhile
  }
}

/** Live processes matching `test` (a zombie waiting for its reaper is dead). */
function liveProcesses(test: (pid: string, stat: Stat) => boolean): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      const stat = statOf(pid);
      return stat !== undefined && stat.state !== 'Z' && test(pid, stat);
    })
    .map(Number);
}

/** Live processes whose environment holds `mark`. */
export function processesMarked(mark: string): number[] {
  return liveProcesses((pid) => {
    try {
      return readFileSync(`/proc/${pid}/environ`, 'utf8').includes(mark);
    } catch {
      return false; // gone meanwhile, or not ours to read
    }
  });
}

/** Live processes of process group `pgid`: all a detached child started that did not leave it. */
export function processesInGroup(pgid: number): number[] {
  return liveProcesses((_, stat) => stat.pgrp === pgid);
}

/** `PID (name)`, for a failure message that says what was left. */
export function describeProcess(pid: number): string {
  return `${pid} (${statOf(String(pid))?.name ?? 'gone'})`;
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
